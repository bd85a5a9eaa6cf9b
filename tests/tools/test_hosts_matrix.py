"""tools/hosts_matrix.py builds docs/hosts.md from the host runs' JSON reports, and --check holds a
committed page to new runs: a changed verdict fails, a run's own time and duration do not."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO


def _load_tool():  # noqa: ANN202 - a module
    """tools/hosts_matrix.py is a developer tool beside the package, not importable from it."""
    path = REPO / "tools" / "hosts_matrix.py"
    spec = importlib.util.spec_from_file_location("toolconformance_hosts_matrix_tool", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hosts_matrix = _load_tool()


def _report(name: str, statuses: dict[str, str], *, started: str = "2026-12-04T10:00:00+00:00",
            duration: float = 12.5) -> dict[str, Any]:
    rules = []
    for rule_id, status in statuses.items():
        rule: dict[str, Any] = {"id": rule_id, "status": status, "tests": []}
        if status == "skipped":
            rule["skip_reasons"] = [f"host '{name}' does not declare capability policy"]
        rules.append(rule)
    summary = {k: sum(1 for s in statuses.values() if s == k) for k in ("passed", "deviation", "skipped", "failed")}
    return {
        "host": {"name": name, "version": "1.0", "spec": f"exec:hosts/{name}/host", "capabilities": ["calls"]},
        "rules": rules,
        "summary": summary,
        "run": {"started": started, "duration_s": duration, "exitstatus": 0},
        "deviations": {"entries": [{"rule": r, "reason": f"{name} does it its own way"}
                                   for r, s in statuses.items() if s == "deviation"]},
    }


def _write(folder: Path, reports: dict[str, dict[str, Any]]) -> list[str]:
    paths = []
    for file, report in reports.items():
        path = folder / file
        path.write_text(json.dumps(report), "utf-8")
        paths.append(str(path))
    return paths


STATUSES = {"REG-4": "passed", "SCHEMA-1": "deviation", "GRANT-1": "skipped"}


def test_the_page_names_every_host_and_the_command_with_the_reports_given(tmp_path: Path) -> None:
    paths = _write(tmp_path, {"a.json": _report("a", STATUSES), "openclaw.json": _report("openclaw", STATUSES)})
    page = hosts_matrix.render([json.loads(Path(p).read_text("utf-8")) for p in paths], paths)
    assert "`python tools/hosts_matrix.py a.json openclaw.json -o docs/hosts.md`" in page
    assert "| SCHEMA-1 | deviation: a does it its own way | deviation: openclaw does it its own way |" in page
    assert "| GRANT-1 | skipped: needs policy | skipped: needs policy |" in page


def test_check_passes_a_page_that_differs_only_in_the_runs_times(tmp_path: Path) -> None:
    committed = tmp_path / "hosts.md"
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": _report("a", STATUSES)}), "-o", str(committed)]) == 0
    again = _write(tmp_path, {"a.json": _report("a", STATUSES, started="2026-12-05T09:00:00+00:00", duration=99.0)})
    assert hosts_matrix.main([*again, "--check", str(committed)]) == 0


def test_check_fails_on_a_changed_verdict_and_shows_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = tmp_path / "hosts.md"
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": _report("a", STATUSES)}), "-o", str(committed)]) == 0
    changed = _write(tmp_path, {"a.json": _report("a", {**STATUSES, "REG-4": "failed"})})
    assert hosts_matrix.main([*changed, "--check", str(committed)]) == 1
    err = capsys.readouterr().err
    assert "is not the page these runs build; regenerate it with python tools/hosts_matrix.py" in err
    assert "-| REG-4 | passed |" in err and "+| REG-4 | failed |" in err


def test_check_passes_a_skip_that_now_names_more_capabilities(tmp_path: Path) -> None:
    committed = tmp_path / "hosts.md"
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": _report("a", STATUSES)}), "-o", str(committed)]) == 0
    report = _report("a", STATUSES)
    report["rules"][2]["skip_reasons"].append("host 'a' does not declare capability delegation, policy")
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": report}), "--check", str(committed)]) == 0


def test_check_fails_when_a_skipped_rule_is_checked(tmp_path: Path) -> None:
    committed = tmp_path / "hosts.md"
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": _report("a", STATUSES)}), "-o", str(committed)]) == 0
    checked = _write(tmp_path, {"a.json": _report("a", {**STATUSES, "GRANT-1": "passed"})})
    assert hosts_matrix.main([*checked, "--check", str(committed)]) == 1


def test_check_fails_when_a_host_is_added(tmp_path: Path) -> None:
    committed = tmp_path / "hosts.md"
    assert hosts_matrix.main([*_write(tmp_path, {"a.json": _report("a", STATUSES)}), "-o", str(committed)]) == 0
    more = _write(tmp_path, {"a.json": _report("a", STATUSES), "b.json": _report("b", STATUSES)})
    assert hosts_matrix.main([*more, "--check", str(committed)]) == 1


def test_the_committed_page_is_built_by_this_tool() -> None:
    page = (REPO / "docs" / "hosts.md").read_text("utf-8")
    assert page.startswith("# Hosts: every rule against every host\n")
    assert "Generated by `tools/hosts_matrix.py`" in page
