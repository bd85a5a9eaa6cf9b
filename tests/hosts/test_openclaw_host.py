"""OpenClaw itself under the host suites (hosts/openclaw/): the adapter, its declared deviations, their
staleness.

Needs OpenClaw installed by ``hosts/openclaw/setup`` (``.ci/run`` runs it); skipped with that instruction
otherwise. The full run against OpenClaw is ``.ci/run``'s (with the deviations file: an entry's check
that passes is stale and fails the run, so every entry is a check that fails without it); these run a
few rules, through pytester, so that the mechanics are pinned: an entry excuses a real failure of
OpenClaw, a missing entry fails the run, and an entry for a rule OpenClaw passes is stale and fails it.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - imported outside the inner runs (see tests/kit/host/wire/test_wire_node_host.py)
import pytest

from pytest_toolconformance.host.contract import CAPABILITIES
from pytest_toolconformance.host.wire.client import WireHostAdapter
from pytest_toolconformance.report.deviations import load_deviations
from tests.hosts.deviation_runs import run_rules, statuses
from tests.paths import REPO

pytestmark = pytest.mark.node

OPENCLAW = REPO / "hosts" / "openclaw"
HOST = OPENCLAW / "host"
DEVIATIONS = OPENCLAW / "deviations.toml"
PACKAGE = OPENCLAW / "node_modules" / "openclaw"


@pytest.fixture(scope="module")
def openclaw_installed() -> str:
    if not (OPENCLAW / "node_modules" / ".bin" / "node").exists() or not (PACKAGE / "package.json").exists():
        pytest.skip("OpenClaw is not installed: run hosts/openclaw/setup")
    return json.loads((PACKAGE / "package.json").read_text("utf-8"))["version"]


def test_setup_is_idempotent(openclaw_installed: str) -> None:
    again = subprocess.run([str(OPENCLAW / "setup")], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "already installed" in again.stdout and openclaw_installed in again.stdout
    assert "Node.js v24." in again.stdout


def _tool(name: str, handler: list[dict], parameters: dict | None = None) -> dict:
    schema = parameters or {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    return {"name": name, "parameters": schema, "handler": handler}


def test_the_adapter_is_openclaw_and_declares_only_what_openclaw_has(openclaw_installed: str) -> None:
    # OpenClaw imports in the first reset; a loaded machine is slow
    adapter = WireHostAdapter([str(HOST)], timeout=60)
    try:
        info = adapter.info()
        assert (info["name"], info["version"], info["collisions"]) == ("openclaw", openclaw_installed, "first-wins")
        assert set(info["capabilities"]) == {"registration", "composition", "calls", "hooks"}
        assert set(info["capabilities"]) <= set(CAPABILITIES)
        adapter.reset()
        report = adapter.install_plugin({"name": "p", "tools": [_tool("Echo", [{"op": "echo"}])]})
        assert (report["accepted"], report["refused"]) == (["Echo"], [])
        session = adapter.open_session({"identity": {"userId": "u1"}})["session"]
        composed = adapter.compose(session)
        names = [t["name"] for t in composed["tools"]]
        assert "Echo" in names and "read" in names  # the plugin's tool beside OpenClaw's core tools
        assert "Echo" in [t["name"] for t in composed["payload"]["tools"]]  # @openclaw/ai's OpenAI request body
        outcome = adapter.call(session, "Echo", {"v": "hi"}, "c1")
        assert (outcome["handlerRan"], outcome["content"]) == (True, [{"type": "text", "text": '{"v": "hi"}'}])
        assert outcome["journal"] == {"callId": "c1", "tool": "Echo", "arguments": {"v": "hi"}}
        assert outcome["modelResult"]["block"]["tool_use_id"] == "c1"  # @openclaw/ai's Anthropic tool_result
        # OpenClaw's agent loop validates (and coerces) before the handler
        refused = adapter.call(session, "Echo", {}, "c2")
        assert (refused["handlerRan"], refused["isError"], refused["refusal"]["stage"]) == (False, True, "validation")
    finally:
        adapter.close()


def test_openclaw_refuses_what_its_registry_and_policy_refuse(openclaw_installed: str) -> None:
    adapter = WireHostAdapter([str(HOST)], timeout=60)
    try:
        adapter.reset()
        # register() that throws: OpenClaw does not load the plugin
        failed = adapter.install_plugin({"name": "boom", "register": [{"op": "throw", "message": "boom"}],
                                         "tools": [_tool("Never", [{"op": "echo"}])]})
        assert failed["error"]["kind"] == "load" and "boom" in failed["error"]["message"]
        # a core tool's name, in another case: OpenClaw keeps its core tool
        first = adapter.install_plugin({"name": "one", "tools": [_tool("Read", [{"op": "echo"}]),
                                                                 _tool("Shared", [{"op": "text", "text": "one"}])]})
        assert first["accepted"] == ["Shared"] and first["refused"][0]["tool"] == "Read"
        assert "conflict" in first["refused"][0]["message"]
        # a second plugin's tool of a taken name: the first plugin keeps it
        second = adapter.install_plugin({"name": "two", "tools": [_tool("Shared", [{"op": "text", "text": "two"}])]})
        assert second["accepted"] == [] and second["refused"][0]["tool"] == "Shared"
        # the session's permissions deny become OpenClaw's tools.deny: the tool is left out of the list
        denied = adapter.open_session({"identity": {"userId": "u1"}, "permissions": {"deny": ["Shared"]}})["session"]
        assert "Shared" not in [t["name"] for t in adapter.compose(denied)["tools"]]
        lookup = adapter.call(denied, "Shared", {"v": "x"}, "c1")
        assert (lookup["handlerRan"], lookup["refusal"]["stage"]) == (False, "lookup")
        allowed = adapter.open_session({"identity": {"userId": "u1"}})["session"]
        assert adapter.call(allowed, "Shared", {"v": "x"}, "c2")["content"] == [{"type": "text", "text": "one"}]
        # a session's deny hook is a before_tool_call handler OpenClaw runs: the handler never runs
        hooked = adapter.open_session({"identity": {"userId": "u1"},
                                       "hooks": [{"tool": "Shared", "decision": "deny", "message": "held"}]})["session"]
        blocked = adapter.call(hooked, "Shared", {"v": "x"}, "c3")
        assert (blocked["handlerRan"], blocked["refusal"]["stage"], blocked["hooksRan"]) == (False, "hook", ["Shared"])
        assert blocked["content"] == [{"type": "text", "text": "held"}]
        # and the next session without hooks is not held by them
        assert adapter.call(allowed, "Shared", {"v": "x"}, "c4")["handlerRan"] is True
    finally:
        adapter.close()


def test_every_entry_has_a_reason_and_a_known_rule() -> None:
    # load_deviations refuses an entry without a reason or with an unknown rule ID
    entries = load_deviations(DEVIATIONS).entries
    assert entries and all(len(e.reason) > 40 for e in entries)
    raw = tomllib.loads(DEVIATIONS.read_text("utf-8"))["deviation"]
    assert len(raw) == len(entries) and all(e.get("checks") for e in raw)


#: A citation of OpenClaw's installed source in a reason: <file under the package>.(m)js:<line>[-<line>].
_CITATION = re.compile(r"((?:dist|node_modules)/[\w@./-]+\.m?js):(\d+)(?:-(\d+))?")


def test_every_reason_cites_the_source_lines_that_do_it(openclaw_installed: str) -> None:
    for entry in load_deviations(DEVIATIONS).entries:
        cited = _CITATION.findall(entry.reason)
        assert cited, f"{entry.rule}: its reason cites no file:line of OpenClaw {openclaw_installed}'s source"
        for path, first, last in cited:
            file = PACKAGE / path if path.startswith("dist/") else OPENCLAW / path
            lines = file.read_text("utf-8").splitlines()
            assert int(first) <= int(last or first) <= len(lines), f"{entry.rule}: {path}:{first} is not in the file"


def _run(pytester: pytest.Pytester, deviations: Path | None) -> tuple[int, dict, str]:
    return run_rules(pytester, HOST, deviations, name="openclaw", timeout=900)


_status = statuses


def test_deviations_excuse_openclaw_and_go_stale(openclaw_installed: str, pytester: pytest.Pytester) -> None:
    # Without the file, OpenClaw fails the rules it breaks and passes the one it keeps.
    ret, report, _ = _run(pytester, None)
    assert ret == 1 and _status(report) == {"SCHEMA-1": "failed", "ERR-5": "failed", "REG-5": "passed"}

    # With OpenClaw's own file the same run passes, each broken rule a declared deviation.
    ret, report, _ = _run(pytester, DEVIATIONS)
    assert ret == 0 and _status(report) == {"SCHEMA-1": "deviation", "ERR-5": "deviation", "REG-5": "passed"}

    # An entry for a rule OpenClaw keeps is stale: the run fails and names it.
    stale = pytester.path / "stale.toml"
    stale.write_text(DEVIATIONS.read_text("utf-8") + '\n[[deviation]]\nrule = "REG-5"\nreason = "pretend OpenClaw '
                     'registers names it was never given"\n', "utf-8")
    ret, report, out = _run(pytester, stale)
    assert ret == 1 and _status(report)["REG-5"] == "passed"
    entry = len(load_deviations(DEVIATIONS).entries) + 1
    assert f'stale deviation: entry {entry} (rule = "REG-5")' in out
