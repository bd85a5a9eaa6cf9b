"""Proof by mutants: every host rule has a broken host that the suites catch on that rule."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import tests.mutants as mutants_pkg
from pytest_toolconformance.rules import all_rules, host_rules


def _mutant_modules() -> list[ModuleType]:
    names = [m.name for m in pkgutil.iter_modules(mutants_pkg.__path__) if m.name != "base" and not m.name.startswith("_")]
    return [importlib.import_module(f"tests.mutants.{name}") for name in sorted(names)]


MUTANTS = _mutant_modules()


def _failed_rules(reprec: pytest.HookRecorder) -> tuple[set[str], list[str]]:
    rules: set[str] = set()
    names: list[str] = []
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.failed:
            names.append(report.nodeid)
            rules.update(value for key, value in report.user_properties if key == "rule")
    return rules, names


def test_every_mutant_names_a_known_rule() -> None:
    known = all_rules()
    for module in MUTANTS:
        assert module.RULE in known, f"{module.__name__}: RULE {module.RULE!r} is not in RULES.md"
        assert callable(getattr(module, "factory", None)), f"{module.__name__} has no factory()"


def test_every_host_rule_has_a_mutant() -> None:
    covered = {m.RULE for m in MUTANTS}
    missing = [rule for rule in host_rules() if rule not in covered]
    assert not missing, f"host rules with no mutant in tests/mutants/: {missing}"


def test_reference_host_passes_every_host_check(pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run("--toolconformance", "-p", "no:cacheprovider")
    passed, skipped, failed = reprec.listoutcomes()
    assert not failed, [r.nodeid for r in failed]
    assert passed, "the suites ran no test against the reference host"


@pytest.mark.parametrize("module", MUTANTS, ids=[m.__name__.rsplit(".", 1)[-1] for m in MUTANTS])
def test_mutant_is_caught_on_its_rule(module: ModuleType, pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run(
        "--toolconformance",
        f"--toolconformance-host={module.__name__}:factory",
        "-k", module.RULE,
        "-p", "no:cacheprovider",
    )
    rules, failed = _failed_rules(reprec)
    assert failed, f"{module.__name__} breaks {module.RULE} but no {module.RULE} test failed"
    assert module.RULE in rules, f"{module.__name__}: failures {failed} carry rules {sorted(rules)}, not {module.RULE}"
