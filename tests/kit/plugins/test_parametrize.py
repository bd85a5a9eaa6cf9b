"""Parametrizing the plugin checks (pytest_toolconformance/plugins/parametrize.py): a run whose plugin could
not be loaded has its other rules blocked by REG-1, the rule its load failed, not skipped."""

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
