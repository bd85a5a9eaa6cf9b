"""Frozen, versioned rule sets: what a run pinned with ``--toolconformance-ruleset=NAME`` gates on.

A set (``rulesets/NAME.toml``, data, never edited once released) lists the rule IDs and the check ids of
the kit when it was frozen. A run pinned to it gates only on those: a check the kit gained since (a new
check id, or a check of a rule the set does not hold) still runs, and is reported as *new and advisory*,
whatever it found, until the user moves the pin; so a kit upgrade cannot turn a green gate red on its
own. ``latest`` (the default) gates on every rule and check of this kit. The run's header, its summary
and its report (``run.ruleset``) name the set.

A check id is the check's file and function (``suite_caps.py::test_external_descriptions_...``), a
scenario case with its case (``suite_scenarios.py::test_scenario[REG-4-reg/...]``): the same for every
plugin or host a check is parametrized with. A set holds a check by its name (:func:`check_name`, the
part after ``::``), which is unique across the suites: moving a check to another module keeps it held.
"""

from __future__ import annotations

import importlib
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.rules import MARKER

RULESETS_DIR = Path(__file__).parent / "rulesets"
LATEST = "latest"
#: The user property a new check's report carries: "<check id>: <what it found>".
NEW_CHECK_PROPERTY = "toolconformance-new-check"
_SCENARIO_CHECK = "test_scenario"


@dataclass(frozen=True)
class RuleSet:
    name: str
    rules: frozenset[str]
    checks: frozenset[str]

    def holds(self, check: str, rules: list[str]) -> bool:
        """Whether a check (its id and rules) is one this set gates on."""
        return check_name(check) in self.check_names and all(rule in self.rules for rule in rules)

    @cached_property
    def check_names(self) -> frozenset[str]:
        """The set's checks by name (:func:`check_name`)."""
        return frozenset(check_name(check) for check in self.checks)


def check_name(check: str) -> str:
    """What identifies a check across kit versions: its id less the module, which a regrouping of the
    suites may change (``suite_access.py::test_x`` and ``suite_planfile.py::test_x`` are one check)."""
    return check.partition("::")[2]


def names() -> list[str]:
    """The frozen sets this kit ships, oldest first."""
    return sorted(path.stem for path in RULESETS_DIR.glob("*.toml"))


def load(name: str) -> RuleSet | None:
    """The set ``name`` (None for ``latest``); an unknown name is a usage error naming the sets there are."""
    if name == LATEST:
        return None
    path = RULESETS_DIR / f"{name}.toml"
    if not path.is_file():
        raise pytest.UsageError(
            f"--toolconformance-ruleset={name}: no such rule set; this kit has {', '.join(names()) or 'none'} and "
            f"{LATEST} (every rule and check of this kit). Pin one of them, or upgrade the kit for a newer set"
        )
    data = tomllib.loads(path.read_text("utf-8"))
    return RuleSet(name=name, rules=frozenset(data["rules"]), checks=frozenset(data["checks"]))


def check_id(item: pytest.Item) -> str:
    """A check's id as rule sets list it: its file and function, and a scenario's case."""
    name = getattr(item, "originalname", None) or item.name
    if name == _SCENARIO_CHECK and "[" in item.name:
        name = item.name
    return f"{item.path.name}::{name}"


def current_checks() -> dict[str, list[str]]:
    """Every check of this kit's suites (host and plugin) with its rules: what a set freezes."""
    from pytest_toolconformance.suites.host.scenarios import load_cases
    from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR

    found: dict[str, list[str]] = {}
    host_suites = Path(__file__).parent / "suites" / "host"
    for folder, package in (
        (host_suites, "pytest_toolconformance.suites.host"),
        (PLUGIN_SUITES_DIR, "pytest_toolconformance.suites.plugin"),
    ):
        for path in sorted(folder.glob("suite_*.py")):
            module = importlib.import_module(f"{package}.{path.stem}")
            for name, function in sorted(vars(module).items()):
                if not name.startswith("test_") or not callable(function) or name == _SCENARIO_CHECK:
                    continue
                marks = getattr(function, "pytestmark", [])
                rules = [rule for mark in marks if mark.name == MARKER for rule in mark.args]
                found[f"{path.name}::{name}"] = rules
    for case in load_cases():
        found[f"suite_scenarios.py::{_SCENARIO_CHECK}[{case.param_id}]"] = list(case.rules)
    return found


class RuleSetPlugin:
    """Tells a run's rule set: in the header, and in the summary with the checks added since (which
    ``report/outcomes.py`` takes out of the gate); plugin.py registers it when the kit is on."""

    def __init__(self, ruleset: RuleSet | None, name: str) -> None:
        self.ruleset = ruleset
        self.name = name
        self.new: dict[str, str] = {}  # check id -> what it found

    def pytest_report_header(self) -> str:
        if self.ruleset is None:
            return (
                f"toolconformance: rule set {LATEST} (every rule and check of this kit; pin one of "
                f"{', '.join(names())} with --toolconformance-ruleset)"
            )
        return (
            f"toolconformance: rule set {self.name} (pinned: {len(self.ruleset.rules)} rules, "
            f"{len(self.ruleset.checks)} checks gate this run; a check added since is advisory)"
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == NEW_CHECK_PROPERTY:
                check, _, found = str(value).partition(": ")
                self.new[check] = found

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.ruleset is None:
            return
        line = f"toolconformance: rule set {self.name}: the verdict is on its rules and checks"
        if self.new:
            failing = sum(1 for found in self.new.values() if found != "passes")
            line += (
                f"; {len(self.new)} check(s) added since are advisory ({failing} would fail): move the pin "
                f"(--toolconformance-ruleset={LATEST} or a newer set) to gate on them"
            )
        terminalreporter.write_line(line, yellow=bool(self.new))
