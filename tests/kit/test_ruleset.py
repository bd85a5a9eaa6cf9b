"""Frozen rule sets (pytest_toolconformance/ruleset.py): a run pinned to a set gates on its checks only; a
check the kit gained since is reported as new and advisory, and the verdict stays what it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolconformance import ruleset

QUIET = ("-p", "no:cacheprovider")
SELECT = ("-k", "CAP-1 and not test_scenario")
#: A check the kit did not have when 2026.12 was frozen, of a rule the set holds; it finds a failure.
GAINED = '''
import pytest
from pytest_toolconformance import Finding


@pytest.mark.toolconformance("CAP-1")
def test_cap1_a_check_gained_after_the_freeze(toolconformance_host):
    raise Finding("CAP-1", "descriptions cut to 1,000 bytes", "a description of 1,200 bytes", subject="host")
'''


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "out" / "report.json"
    result = pytester.runpytest_inprocess("--toolconformance", f"--toolconformance-report={report}", *SELECT,
                                          *args, *QUIET)
    return result, json.loads(report.read_text("utf-8"))


def verdict(report: dict[str, Any]) -> tuple[Any, ...]:
    return report["ok"], report["why"], {rule["id"]: rule["status"] for rule in report["rules"]}


def test_a_pinned_run_keeps_its_verdict_when_the_kit_gains_a_check(pytester: pytest.Pytester) -> None:
    before, pinned = run(pytester, "--toolconformance-ruleset=2026.12")
    assert before.ret == pytest.ExitCode.OK and pinned["ok"] is True
    before.stdout.fnmatch_lines(["toolconformance: rule set 2026.12 (pinned: * rules, * checks gate this run*"])
    assert pinned["run"]["ruleset"] == "2026.12"

    pytester.makepyfile(test_gained=GAINED)
    after, gained = run(pytester, "--toolconformance-ruleset=2026.12")
    assert after.ret == pytest.ExitCode.OK and verdict(gained) == verdict(pinned)
    after.stdout.fnmatch_lines([
        "*ToolConformanceAdvisory: new check test_gained.py::test_cap1_a_check_gained_after_the_freeze (not in rule "
        "set 2026.12, advisory until you move the pin): would fail: [[]CAP-1] the host under test: expected "
        "descriptions cut to 1,000 bytes*",
        "toolconformance: rule set 2026.12: the verdict is on its rules and checks; 1 check(s) added since are "
        "advisory (1 would fail)*",
    ])
    assert "rule set 2026.12" in (pytester.path / "out" / "report.md").read_text("utf-8")

    # The pin moved to the kit's latest: the gained check gates, and fails the run.
    latest, moved = run(pytester)
    assert latest.ret == pytest.ExitCode.TESTS_FAILED and moved["ok"] is False
    assert verdict(moved)[2]["CAP-1"] == "failed" and moved["run"]["ruleset"] == "latest"


def test_an_unknown_set_is_a_usage_error_naming_the_sets(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--toolconformance", "--toolconformance-ruleset=2019.01", *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --toolconformance-ruleset=2019.01: no such rule set; this kit has 2026.12*"])


def test_the_ini_mirror_pins_the_set(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolconformance_ruleset = 2026.12\n")
    pytester.makepyfile(test_gained=GAINED)
    result, report = run(pytester)
    assert result.ret == pytest.ExitCode.OK and report["run"]["ruleset"] == "2026.12"


def test_every_frozen_set_names_rules_of_the_catalog_and_checks_the_kit_had() -> None:
    from pytest_toolconformance.rules import all_rules

    for name in ruleset.names():
        frozen = ruleset.load(name)
        assert frozen is not None and frozen.rules <= set(all_rules()), name
        assert frozen.checks and all("::test_" in check for check in frozen.checks), name


def test_a_set_holds_its_checks_by_name_wherever_the_kit_keeps_them() -> None:
    """A check's name is unique across the suites, so a set holds it whatever module it lives in: 2026.12
    was frozen when suite_calls.py and suite_access.py held several rule families, and still gates on
    every check it froze (385, all of them still in the kit) and on nothing else."""
    current = ruleset.current_checks()
    names = [ruleset.check_name(check) for check in current]
    assert sorted(name for name in set(names) if names.count(name) > 1) == []

    frozen = ruleset.load("2026.12")
    assert frozen is not None
    held = {check for check, rules in current.items() if frozen.holds(check, rules)}
    assert len(frozen.checks) == 385 and {ruleset.check_name(check) for check in held} == frozen.check_names
    moved = ruleset.check_name("suite_access.py::test_planfile1_presence")
    assert "suite_access.py::test_planfile1_presence" in frozen.checks and f"suite_planfile.py::{moved}" in held
