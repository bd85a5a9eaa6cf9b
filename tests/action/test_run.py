"""The repository's GitHub Action: its run step (action/run.py) run as the composite runs it, with
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY set to files, on a conforming and a broken plugin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import NODE_MODULES, PLUGINS, REPO

ACTION = REPO / "action.yml"
RUN = REPO / "action" / "run.py"

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js 20.6+ on PATH"),
    pytest.mark.skipif(not (NODE_MODULES / "typebox").is_dir(), reason="needs `npm ci --prefix tests`"),
]


def run_step(tmp_path: Path, **inputs: str) -> tuple[int, dict[str, str], str]:
    """The composite's run step as GitHub runs it: the inputs as its env, in the job's workspace."""
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_ACTION_PATH": str(REPO)}
    env.update({f"TOOLCONFORMANCE_ACTION_{name.upper()}": value for name, value in inputs.items()})
    done = subprocess.run([sys.executable, str(RUN)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    lines = output.read_text("utf-8").splitlines() if output.exists() else []
    values = dict(line.split("=", 1) for line in lines)
    return done.returncode, values, summary.read_text("utf-8") if summary.exists() else ""


def test_a_conforming_plugin_gives_the_verdict_the_counts_and_the_reports(tmp_path: Path) -> None:
    code, values, summary = run_step(tmp_path, plugin=str(PLUGINS / "js" / "conforming"))
    assert code == 0, values
    assert values["verdict"] == "conforms" and values["verdict-line"].startswith("conforms on ")
    counts = json.loads(values["counts"])
    assert counts["failed"] == 0 and counts["passed"] > 0 and counts["rules"] >= counts["passed"]
    assert values["report-json"] == str(tmp_path / "conformance-out" / "report.json")
    for key in ("report-json", "report-markdown", "report-html", "junit"):
        assert Path(values[key]).is_file(), key
    assert summary == Path(values["report-markdown"]).read_text("utf-8") + "\n"


def test_a_broken_plugin_fails_the_step_and_says_so(tmp_path: Path) -> None:
    code, values, summary = run_step(tmp_path, plugin=str(PLUGINS / "js" / "broken_schema_4"),
                                     args="--toolconformance-max-examples=10", **{"report_dir": "out"})
    assert code == 1
    assert values["verdict"] == "does-not-conform" and "SCHEMA-4" in summary
    assert json.loads(values["counts"])["failed"] >= 1
    assert values["report-json"] == str(tmp_path / "out" / "report.json")


def test_a_run_that_cannot_start_is_a_usage_error_with_no_report(tmp_path: Path) -> None:
    code, values, _ = run_step(tmp_path, plugin=str(tmp_path / "no-such-plugin"))
    assert code == 4 and values["verdict"] == "usage-error" and values["report-json"] == ""


def test_the_composite_runs_this_script_with_every_input_it_declares() -> None:
    text = ACTION.read_text("utf-8")
    assert 'run: python "$GITHUB_ACTION_PATH/action/run.py"' in text
    assert 'python -m pip install "$GITHUB_ACTION_PATH"' in text  # the kit from the action's own files
    inputs = re.search(r"(?ms)^inputs:\n(.*?)^outputs:", text)[1]
    declared = re.findall(r"(?m)^  ([a-z-]+):$", inputs)
    passed = re.findall(r"TOOLCONFORMANCE_ACTION_([A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}", text)
    assert sorted(declared) == sorted([*(name for _, name in passed), "python-version"])
    assert all(variable == name.upper().replace("-", "_") for variable, name in passed)
    outputs = re.search(r"(?ms)^outputs:\n(.*?)^runs:", text)[1]
    assert sorted(re.findall(r"(?m)^  ([a-z-]+):$", outputs)) == sorted(
        ["verdict", "verdict-line", "counts", "report-json", "report-markdown", "report-html", "junit"])
