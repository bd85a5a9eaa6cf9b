"""aelix (aelix-coding-agent from PyPI, a Python host with pi's extension API) under the host suites,
in process through hosts/aelix/adapter.py: its adapter, its deviations, their citations of aelix's source.

Needs hosts/aelix/setup (``.ci/run`` runs it): aelix and this checkout's kit in hosts/aelix/.venv; skipped
with that instruction otherwise. The kit runs in that interpreter (a subprocess here), since aelix is
checked in process. The full run is ``.ci/run``'s, with the deviations file (an entry's check that passes
is stale and fails the run, so every entry is a check that fails without it).
"""

from __future__ import annotations

import glob
import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from pytest_toolconformance.report.deviations import load_deviations
from tests.paths import REPO

AELIX = REPO / "hosts" / "aelix"
PYTHON = AELIX / ".venv" / "bin" / "python"
DEVIATIONS = AELIX / "deviations.toml"
SPEC = "--toolconformance-host=hosts.aelix.adapter:factory"


@pytest.fixture(scope="module")
def aelix() -> Path:
    if not PYTHON.exists():
        pytest.skip("aelix is not installed: run hosts/aelix/setup")
    return PYTHON


def test_setup_is_idempotent(aelix: Path) -> None:
    again = subprocess.run([str(AELIX / "setup")], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "already installed" in again.stdout and "0.1.0b2" in again.stdout


def test_the_adapter_drives_aelix_itself(aelix: Path) -> None:
    # A first registration keeps its name (aelix's registry is first-wins across extensions); the call runs
    # through aelix's own loop, and the model's next request carries the tool result.
    script = """
import json
from hosts.aelix.adapter import factory
a = factory(10)
a.reset()
echo = {"name": "Echo", "parameters": {"type": "object", "properties": {"v": {"type": "string"}}},
        "handler": [{"op": "echo"}]}
first, second = a.install_plugin({"name": "p", "tools": [echo]}), a.install_plugin({"name": "q", "tools": [echo]})
s = a.open_session({})["session"]
composed, outcome = a.compose(s), a.call(s, "Echo", {"v": "hi"}, "c1")
print(json.dumps({"info": a.info(), "first": first, "second": second, "tools": [t["name"] for t in composed["tools"]],
                  "payload": [t["name"] for t in composed["payload"]["tools"]], "outcome": outcome}))
"""
    done = subprocess.run([str(aelix), "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert (seen["info"]["name"], seen["info"]["collisions"]) == ("aelix", "first-wins")
    assert seen["first"]["accepted"] == ["Echo"] and [r["tool"] for r in seen["second"]["refused"]] == ["Echo"]
    assert seen["tools"] == seen["payload"] == ["Echo"]
    outcome = seen["outcome"]
    assert (outcome["handlerRan"], outcome["isError"], outcome["content"]) == (
        True, False, [{"type": "text", "text": '{"v": "hi"}'}])
    assert outcome["modelResult"]["content"] == outcome["content"]
    assert outcome["journal"] == {"callId": "c1", "tool": "Echo", "arguments": {"v": "hi"}}


RULES = "SCHEMA-1 or ERR-5 or REG-5"


def _run(tmp: Path, deviations: Path | None) -> tuple[int, dict[str, str]]:
    report = tmp / "aelix.json"
    args = [str(PYTHON), "-m", "pytest", "--toolconformance", SPEC, f"--toolconformance-report={report}", "-k", RULES,
            "-p", "no:cacheprovider", "-q"]
    if deviations is not None:
        args.append(f"--toolconformance-deviations={deviations}")
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600)
    rules = json.loads(report.read_text("utf-8"))["rules"]
    return done.returncode, {r["id"]: r["status"] for r in rules if r["id"] in RULES.split(" or ")}


def test_deviations_excuse_aelix_and_the_payload_reading_holds(aelix: Path, tmp_path: Path) -> None:
    # Without the file aelix fails the rules it breaks; REG-5 passes although aelix's OpenAI request body has
    # no "tools" key when no tool is offered (the reading in docs/readings.md: it failed before).
    assert _run(tmp_path, None) == (1, {"SCHEMA-1": "failed", "ERR-5": "failed", "REG-5": "passed"})
    assert _run(tmp_path, DEVIATIONS) == (0, {"SCHEMA-1": "deviation", "ERR-5": "deviation", "REG-5": "passed"})


#: A citation of aelix's installed source in a reason: site-packages/<file>.py:<line>[-<line>].
_CITATION = re.compile(r"site-packages/([\w./-]+\.py):(\d+)(?:-(\d+))?")


def test_every_reason_cites_the_source_lines_that_do_it(aelix: Path) -> None:
    entries = load_deviations(DEVIATIONS).entries
    raw = tomllib.loads(DEVIATIONS.read_text("utf-8"))["deviation"]
    assert entries and len(raw) == len(entries) and all(e.get("checks") for e in raw)
    (site,) = glob.glob(str(AELIX / ".venv" / "lib" / "python3*" / "site-packages"))
    for entry in entries:
        cited = _CITATION.findall(entry.reason)
        assert cited, f"{entry.rule}: its reason cites no file:line of aelix's source"
        for path, first, last in cited:
            lines = (Path(site) / path).read_text("utf-8").splitlines()
            assert int(first) <= int(last or first) <= len(lines), f"{entry.rule}: {path}:{first} is not in the file"
