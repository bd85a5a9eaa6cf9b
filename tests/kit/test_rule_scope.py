"""The rules a plugin-only run reports are the rules the plugin suites check.

A rule that binds plugins (RULES.md: "plugin" or "both") is either declared by a plugin check or
listed in rules.UNCHECKED_PLUGIN_SIDE with the reason no plugin check can observe it; a plugin run
then reports it out of scope with that reason, never as a rule that was not run.
"""

from __future__ import annotations

import importlib
import inspect

from pytest_toolconformance.rules import UNCHECKED_PLUGIN_SIDE, all_rules, plugin_rules
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR

#: The rules of checks whose rule depends on the subject: test_plugin_loads reports REG-1 (or the
#: rule a load failure names), test_registration REG-2 and SCHEMA-1 (or the rule of a refusal).
SUBJECT_DEPENDENT = {"test_plugin_loads": {"REG-1"}, "test_registration": {"REG-2", "SCHEMA-1"}}


def _declared_rules() -> set[str]:
    declared: set[str] = set()
    for path in sorted(PLUGIN_SUITES_DIR.glob("suite_*.py")):
        module = importlib.import_module(f"pytest_toolconformance.suites.plugin.{path.stem}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            spec = getattr(function, "_toolconformance_for", None)
            if spec is None:
                continue
            rules = spec[1]
            declared |= SUBJECT_DEPENDENT[name] if callable(rules) else set(rules)
    return declared


def test_every_plugin_rule_is_checked_or_says_why_not() -> None:
    declared = _declared_rules()
    assert declared <= set(all_rules()), f"checks declare unknown rules: {sorted(declared - set(all_rules()))}"
    unchecked = set(plugin_rules()) - declared
    assert unchecked == set(UNCHECKED_PLUGIN_SIDE), (
        f"plugin rules without a plugin check: {sorted(unchecked)}; listed as unobservable: "
        f"{sorted(UNCHECKED_PLUGIN_SIDE)}"
    )
    assert all(reason.strip() for reason in UNCHECKED_PLUGIN_SIDE.values())
