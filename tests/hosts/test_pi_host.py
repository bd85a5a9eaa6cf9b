"""pi itself under the host suites (hosts/pi/): its adapter, its declared deviations, their staleness.

Needs pi installed by ``hosts/pi/setup`` (``.ci/run`` runs it); skipped with that instruction otherwise.
The full run against pi is ``.ci/run``'s; these run a few rules of it, through pytester, so that the
mechanics are pinned: an entry excuses a real failure of pi, a missing entry fails the run, and an
entry for a rule pi passes is stale and fails the run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - imported outside the inner runs (see tests/kit/host/wire/test_wire_node_host.py)
import pytest

from pytest_toolconformance.host.contract import CAPABILITIES
from pytest_toolconformance.host.wire.client import WireHostAdapter
from pytest_toolconformance.report.deviations import load_deviations
from tests.paths import REPO

sys.path.insert(0, str(REPO / "tools"))
import hosts_matrix  # noqa: E402

pytestmark = pytest.mark.node

PI = REPO / "hosts" / "pi"
HOST = PI / "host"
DEVIATIONS = PI / "deviations.toml"
PACKAGE = PI / "node_modules" / "@earendil-works" / "pi-coding-agent" / "package.json"


@pytest.fixture(scope="module")
def pi_installed() -> str:
    if not (PI / "node_modules" / ".bin" / "node").exists() or not PACKAGE.exists():
        pytest.skip("pi is not installed: run hosts/pi/setup")
    return json.loads(PACKAGE.read_text("utf-8"))["version"]


def test_setup_is_idempotent(pi_installed: str) -> None:
    again = subprocess.run([str(PI / "setup")], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "already installed" in again.stdout


def test_the_adapter_is_pi_and_declares_only_what_pi_has(pi_installed: str) -> None:
    adapter = WireHostAdapter([str(HOST)], timeout=30)  # pi imports in the first reset; a loaded machine is slow
    try:
        info = adapter.info()
        assert (info["name"], info["version"]) == ("pi", pi_installed)
        assert set(info["capabilities"]) == {"registration", "composition", "calls", "hooks"}
        assert set(info["capabilities"]) <= set(CAPABILITIES)
        adapter.reset()
        report = adapter.install_plugin({"name": "p", "tools": [
            {"name": "Echo", "parameters": {"type": "object", "properties": {"v": {"type": "string"}}},
             "handler": [{"op": "echo"}]}]})
        assert report["accepted"] == ["Echo"]
        session = adapter.open_session({"identity": {"userId": "u1"}})["session"]
        composed = adapter.compose(session)
        assert "Echo" in [t["name"] for t in composed["tools"]]
        assert "Echo" in [t["name"] for t in composed["payload"]["tools"]]  # pi-ai's OpenAI request body
        outcome = adapter.call(session, "Echo", {"v": "hi"}, "c1")
        assert (outcome["handlerRan"], outcome["content"]) == (True, [{"type": "text", "text": '{"v": "hi"}'}])
        assert outcome["journal"] == {"callId": "c1", "tool": "Echo", "arguments": {"v": "hi"}}
    finally:
        adapter.close()


def test_every_entry_has_a_reason_and_a_known_rule() -> None:
    # load_deviations refuses an entry without a reason or with an unknown rule ID
    entries = load_deviations(DEVIATIONS).entries
    assert entries and all(len(e.reason) > 40 for e in entries)
    raw = tomllib.loads(DEVIATIONS.read_text("utf-8"))["deviation"]
    assert len(raw) == len(entries)


RULES = "SCHEMA-1 or ERR-5 or REG-5"


def _run(pytester: pytest.Pytester, deviations: Path | None) -> tuple[int, dict, str]:
    report = pytester.path / "pi.json"
    args = ["--toolconformance", f"--toolconformance-host=exec:{HOST}", f"--toolconformance-report={report}",
            "--toolconformance-timeout=30", "-k", RULES, "-p", "no:cacheprovider", "-q"]
    if deviations is not None:
        args.append(f"--toolconformance-deviations={deviations}")
    result = pytester.runpytest_subprocess(*args, timeout=600)
    return result.ret, json.loads(report.read_text("utf-8")), result.stdout.str()


def _status(report: dict) -> dict[str, str]:
    return {r["id"]: r["status"] for r in report["rules"] if r["id"] in RULES.split(" or ")}


def test_deviations_excuse_pi_and_go_stale(pi_installed: str, pytester: pytest.Pytester) -> None:
    # Without the file, pi fails the rules it breaks and passes the one it keeps.
    ret, report, _ = _run(pytester, None)
    assert ret == 1 and _status(report) == {"SCHEMA-1": "failed", "ERR-5": "failed", "REG-5": "passed"}

    # With pi's own file the same run passes, each broken rule a declared deviation.
    ret, report, _ = _run(pytester, DEVIATIONS)
    assert ret == 0 and _status(report) == {"SCHEMA-1": "deviation", "ERR-5": "deviation", "REG-5": "passed"}

    # The host matrix reads the same report: the reason comes from pi's file, the skip from the run.
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1].rstrip(" |")
            for line in hosts_matrix.render([report], ["pi.json"]).splitlines() if line.startswith("| ")}
    reasons = {e.rule: e.reason for e in load_deviations(DEVIATIONS).entries if e.rule}
    assert rows["SCHEMA-1"] == "deviation: " + reasons["SCHEMA-1"].replace("|", "\\|")
    assert rows["REG-5"] == "passed"

    # An entry for a rule pi keeps is stale: the run fails and names it.
    stale = pytester.path / "stale.toml"
    stale.write_text(DEVIATIONS.read_text("utf-8") + '\n[[deviation]]\nrule = "REG-5"\nreason = "pretend pi '
                     'registers names it was never given"\n', "utf-8")
    ret, report, out = _run(pytester, stale)
    assert ret == 1 and _status(report)["REG-5"] == "passed"
    entry = len(load_deviations(DEVIATIONS).entries) + 1
    assert f'stale deviation: entry {entry} (rule = "REG-5")' in out
