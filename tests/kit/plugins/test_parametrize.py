"""Parametrizing the plugin checks (pytest_toolconformance/plugins/parametrize.py): a run whose plugin could
not be loaded has its other rules blocked by REG-1, the rule its load failed, not skipped; a plugin that
registers no tool has its per-tool rules not applicable, none never run."""

from __future__ import annotations

import json

import pytest

from tests.paths import PLUGINS


def test_a_plugin_that_does_not_load_blocks_its_other_rules_on_reg1(pytester: pytest.Pytester,
                                                                       node_ready: str) -> None:
    report = pytester.path / "out" / "report.json"
    result = pytester.runpytest_inprocess(f"--toolconformance-plugin={PLUGINS / 'js' / 'throws_on_load'}",
                                          f"--toolconformance-report={report}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    rules = {rule["id"]: rule for rule in json.loads(report.read_text("utf-8"))["rules"]}
    assert rules["REG-1"]["status"] == "failed"
    waiting = {rule_id: rule for rule_id, rule in rules.items() if rule["status"] not in ("failed", "not-run")}
    assert waiting and {rule["status"] for rule in waiting.values()} == {"blocked"}, {
        rule_id: rule["status"] for rule_id, rule in waiting.items()}
    assert all(rule["blocked_by"] == ["REG-1"] for rule in waiting.values())
    result.stdout.fnmatch_lines(["BLOCKED REG-3: by REG-1*"])


def test_a_plugin_that_registers_no_tool_has_its_per_tool_rules_not_applicable(pytester: pytest.Pytester) -> None:
    # A check whose rules are a function of the tool (REG-2, SCHEMA-1) still stands for its rules when
    # there is no tool: "not run" would tell the author the run was incomplete.
    report = pytester.path / "out" / "report.json"
    plugin = PLUGINS / "python" / "registers_nothing.py"
    result = pytester.runpytest_inprocess(f"--toolconformance-plugin={plugin}", f"--toolconformance-report={report}",
                                          "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    rules = {rule["id"]: rule["status"] for rule in json.loads(report.read_text("utf-8"))["rules"]}
    assert rules["REG-1"] == "passed"
    assert rules["REG-2"] == rules["SCHEMA-1"] == "not-applicable"
    assert "not-run" not in rules.values(), rules
