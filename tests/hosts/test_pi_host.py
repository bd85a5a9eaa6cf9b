"""pi itself under the host suites, both lines: pi 1.6 (hosts/pi/) and the older @mariozechner 0.73 line
(hosts/pi-0.73/, the same adapter over that line's API): the adapters, their declared deviations, their
staleness.

Needs each line installed by its ``setup`` (``.ci/run`` runs both); skipped with that instruction
otherwise. The full runs against pi are ``.ci/run``'s (with each deviations file: an entry's check that
passes is stale and fails the run, so every entry is a check that fails without it); these run a few
rules, through pytester, so that the mechanics are pinned: an entry excuses a real failure of pi, a
missing entry fails the run, and an entry for a rule pi passes is stale and fails the run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - imported outside the inner runs (see tests/kit/host/wire/test_wire_node_host.py)
import pytest

from pytest_toolconformance.host.contract import CAPABILITIES
from pytest_toolconformance.host.wire.client import WireHostAdapter
from pytest_toolconformance.report.deviations import load_deviations
from tests.hosts.deviation_runs import run_rules, statuses
from tests.paths import REPO

sys.path.insert(0, str(REPO / "tools"))
import hosts_matrix  # noqa: E402

pytestmark = pytest.mark.node

PI = REPO / "hosts" / "pi"
HOST = PI / "host"
DEVIATIONS = PI / "deviations.toml"
PACKAGE = PI / "node_modules" / "@earendil-works" / "pi-coding-agent" / "package.json"
#: Each line of pi: its folder and the npm package that is pi there.
LINES = {
    "pi": (PI, "@earendil-works/pi-coding-agent"),
    "pi-0.73": (REPO / "hosts" / "pi-0.73", "@mariozechner/pi-coding-agent"),
}


def _installed(folder: Path, package: str) -> str:
    manifest = folder / "node_modules" / package / "package.json"
    if not (folder / "node_modules" / ".bin" / "node").exists() or not manifest.exists():
        pytest.skip(f"{folder.name} is not installed: run hosts/{folder.name}/setup")
    return json.loads(manifest.read_text("utf-8"))["version"]


@pytest.fixture(scope="module")
def pi_installed() -> str:
    return _installed(PI, LINES["pi"][1])


@pytest.fixture(params=sorted(LINES), scope="module")
def pi_line(request: pytest.FixtureRequest) -> tuple[Path, str]:
    """A line of pi, installed: its folder and its version."""
    folder, package = LINES[request.param]
    return folder, _installed(folder, package)


def test_setup_is_idempotent(pi_line: tuple[Path, str]) -> None:
    folder, version = pi_line
    again = subprocess.run([str(folder / "setup")], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "already installed" in again.stdout and version in again.stdout


def test_the_adapter_is_pi_and_declares_only_what_pi_has(pi_line: tuple[Path, str]) -> None:
    folder, version = pi_line
    # pi imports in the first reset; a loaded machine is slow
    adapter = WireHostAdapter([str(folder / "host")], timeout=30)
    try:
        info = adapter.info()
        assert (info["name"], info["version"], info["collisions"]) == ("pi", version, "first-wins")
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


@pytest.mark.parametrize("line", sorted(LINES))
def test_every_entry_has_a_reason_and_a_known_rule(line: str) -> None:
    # load_deviations refuses an entry without a reason or with an unknown rule ID
    deviations = LINES[line][0] / "deviations.toml"
    entries = load_deviations(deviations).entries
    assert entries and all(len(e.reason) > 40 for e in entries)
    raw = tomllib.loads(deviations.read_text("utf-8"))["deviation"]
    assert len(raw) == len(entries) and all(e.get("checks") for e in raw)


#: A citation of pi's installed source in a reason: node_modules/<file>.js:<line>[-<line>].
_CITATION = re.compile(r"(node_modules/[\w@./-]+\.js):(\d+)(?:-(\d+))?")


def test_every_reason_cites_the_source_lines_that_do_it(pi_line: tuple[Path, str]) -> None:
    folder, version = pi_line
    for entry in load_deviations(folder / "deviations.toml").entries:
        cited = _CITATION.findall(entry.reason)
        assert cited, f"{entry.rule}: its reason cites no file:line of pi {version}'s source"
        for path, first, last in cited:
            lines = (folder / path).read_text("utf-8").splitlines()
            assert int(first) <= int(last or first) <= len(lines), f"{entry.rule}: {path}:{first} is not in the file"


def _run(pytester: pytest.Pytester, deviations: Path | None) -> tuple[int, dict, str]:
    return run_rules(pytester, HOST, deviations, name="pi", timeout=600)


_status = statuses


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
