"""A host in another language: the JS host kit's framing in tests/subjects/wire_hosts/minimal_host.mjs,
on Node.js and on Bun.

It declares no capabilities, so every check must skip with the capability it needs named in the
reason: none may pass without having checked anything, and none may fail or error.
"""

from __future__ import annotations

import re

# Imported here, outside the inner runs: pytester drops the modules an inline run imported, and a
# second run would mix two copies of hypothesis ("returned non-strategy CompositeStrategy").
import hypothesis.strategies  # noqa: F401
import pytest

from pytest_toolconformance.host.contract import CAPABILITIES
from pytest_toolconformance.host.wire.client import WireHostAdapter
from tests.paths import WIRE_HOSTS

HOST = WIRE_HOSTS / "minimal_host.mjs"
_REASON = re.compile(r"host 'minimal-node-host' does not declare capability (.+)$")


def test_a_node_host_handshakes(js_runtime: str) -> None:
    adapter = WireHostAdapter([js_runtime, str(HOST)], timeout=5)
    adapter.transcript = []
    try:
        info = adapter.info()
        assert (info["name"], info["capabilities"], info["protocol"]) == ("minimal-node-host", [], 1)
        adapter.reset()
        assert adapter.compose("s1")["error"]["kind"] == "unsupported"
    finally:
        adapter.close()
    assert [line[:40] for side, line in adapter.transcript if side == "kit"] == [
        b'{"seq":0,"method":"hello","params":{"pro', b'{"seq":1,"method":"reset","params":{}}\n',
        b'{"seq":2,"method":"stop","params":{}}\n',
    ]


def test_every_check_skips_naming_the_capability(js_runtime: str, pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run(
        "--toolconformance", f"--toolconformance-host=exec:{js_runtime} {HOST}", "-p", "no:cacheprovider",
    )
    reports = [r for r in reprec.getreports("pytest_runtest_logreport")]
    ran = [r.nodeid for r in reports if r.when == "call" and not r.skipped]
    assert not ran, f"checks ran (passed or failed) against a host that declares nothing: {ran[:10]}"
    assert not [r.nodeid for r in reports if r.failed], "checks failed or errored"
    skipped = [r for r in reports if r.skipped]
    assert skipped, "no check was collected"
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        match = _REASON.search(reason.removeprefix("Skipped: "))
        assert match, f"{report.nodeid}: skip reason {reason!r} does not name a capability"
        named = [c.strip() for c in match.group(1).split(",")]
        assert named and all(c in CAPABILITIES for c in named), (report.nodeid, named)
