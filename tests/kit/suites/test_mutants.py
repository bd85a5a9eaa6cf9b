"""Proof by mutants: every host rule has a broken host that the suites catch on that rule, and only there.

A mutant module (tests/subjects/mutants/) defines ``RULE``, the one rule it breaks, ``factory()``, and
optionally ``ALSO``: ``{rule: reason}`` for rules whose checks truly depend on the broken
behaviour. The suites run whole against every mutant: the mutant must turn ``RULE`` red and no
other rule but those it declares. A rule that a broken precondition blocks is not red (it is
reported ``blocked by RULE``), so it needs no declaration.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from types import ModuleType

import pytest
from hypothesis import Phase
from hypothesis import settings as hypothesis_settings

import tests.subjects.mutants as mutants_pkg
from pytest_toolconformance.rules import all_rules, host_rules


def _mutant_modules() -> list[ModuleType]:
    names = [
        m.name for m in pkgutil.iter_modules(mutants_pkg.__path__) if m.name != "base" and not m.name.startswith("_")
    ]
    return [importlib.import_module(f"tests.subjects.mutants.{name}") for name in sorted(names)]


MUTANTS = _mutant_modules()
#: Examples per generated property in a mutant's run: the whole suites run once per mutant, so fewer
#: than a user's run; the boundary strategies put their edge cases first, where every mutant is caught
#: (all of them at 5 as at 10; 5 takes a fifth less of the own suite's longest part, docs/performance.md).
EXAMPLES = os.environ.get("TOOLCONFORMANCE_MUTANT_EXAMPLES", "5")
#: Which rules a mutant turns red is the question, not the smallest example: no shrinking.
PROFILE = "toolconformance-mutants"
hypothesis_settings.register_profile(PROFILE, phases=[Phase.explicit, Phase.reuse, Phase.generate])


@pytest.fixture
def mutant_profile() -> object:
    """The inner run loads PROFILE for the whole process; the outer run gets its own back."""
    before = hypothesis_settings.get_current_profile_name()
    yield PROFILE
    hypothesis_settings.load_profile(before)


def also(module: ModuleType) -> dict[str, str]:
    """The mutant's declared dependent rules, each with its reason."""
    return dict(getattr(module, "ALSO", {}))


def _red_rules(reprec: pytest.HookRecorder) -> tuple[dict[str, list[str]], list[str]]:
    """Per red rule, the failed (or errored) checks that carry it."""
    rules: dict[str, list[str]] = {}
    names: list[str] = []
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.failed:
            names.append(report.nodeid)
            for key, value in report.user_properties:
                if key == "rule":
                    rules.setdefault(str(value), []).append(report.nodeid.rsplit("::", 1)[-1])
    return rules, names


def test_every_mutant_names_a_known_rule() -> None:
    known = all_rules()
    for module in MUTANTS:
        assert module.RULE in known, f"{module.__name__}: RULE {module.RULE!r} is not in RULES.md"
        assert callable(getattr(module, "factory", None)), f"{module.__name__} has no factory()"
        declared = getattr(module, "ALSO", {})
        assert isinstance(declared, dict), f"{module.__name__}: ALSO must map each dependent rule to its reason"
        for rule, reason in declared.items():
            assert rule in known and rule != module.RULE, f"{module.__name__}: ALSO names {rule!r}"
            assert isinstance(reason, str) and len(reason.split()) >= 4, (
                f"{module.__name__}: ALSO[{rule!r}] needs a reason"
            )


def test_every_wire_mutant_has_an_in_process_twin() -> None:
    """A wire mutant breaks what its in-process twin breaks: the same rule, the same way."""
    by_name = {m.__name__: m for m in MUTANTS}
    for module in (m for m in MUTANTS if m.__name__.endswith("_over_the_wire")):
        twin = by_name.get(module.__name__.removesuffix("_over_the_wire"))
        assert twin is not None, f"{module.__name__} has no in-process twin"
        assert twin.RULE == module.RULE, f"{module.__name__} breaks {module.RULE}, its twin {twin.RULE}"


def test_every_host_rule_has_a_mutant() -> None:
    covered = {m.RULE for m in MUTANTS}
    missing = [rule for rule in host_rules() if rule not in covered]
    assert not missing, f"host rules with no mutant in tests/subjects/mutants/: {missing}"


def test_reference_host_passes_every_host_check(pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run("--toolconformance", "-p", "no:cacheprovider")
    passed, skipped, failed = reprec.listoutcomes()
    assert not failed, [r.nodeid for r in failed]
    assert passed, "the suites ran no test against the reference host"


#: COST-1, the one timing check: 3,000 tools a round, several rounds, most of a mutant's run (about
#: a third of the whole own suite when every mutant ran it). It runs against the mutants of COST-1;
#: the others leave it out. What it would show there (that a host as linear as the reference host is
#: not reported as quadratic) is shown by the reference host, the conforming variant hosts
#: (test_variant_hosts.py) and the real hosts, which run it whole.
TIMING_CHECK = "test_composition_time_per_tool_does_not_grow_with_the_catalog"


def _runs_the_timing_check(module: ModuleType) -> bool:
    return module.RULE == "COST-1" or "COST-1" in also(module)


@pytest.mark.parametrize("module", MUTANTS, ids=[m.__name__.rsplit(".", 1)[-1] for m in MUTANTS])
def test_mutant_is_caught_on_its_rule_and_no_other(
    module: ModuleType, pytester: pytest.Pytester, mutant_profile: str
) -> None:
    reprec = pytester.inline_run(
        "--toolconformance",
        f"--toolconformance-host={module.__name__}:factory",
        f"--toolconformance-max-examples={EXAMPLES}",
        f"--hypothesis-profile={mutant_profile}",
        "-p",
        "no:cacheprovider",
        *(() if _runs_the_timing_check(module) else ("-k", f"not {TIMING_CHECK}")),
    )
    rules, failed = _red_rules(reprec)
    assert failed, f"{module.__name__} breaks {module.RULE} but no check failed"
    assert module.RULE in rules, f"{module.__name__}: failures {failed} carry rules {sorted(rules)}, not {module.RULE}"
    blamed = {rule: checks for rule, checks in rules.items() if rule != module.RULE and rule not in also(module)}
    assert not blamed, (
        f"{module.__name__} breaks {module.RULE} only, yet these rules went red too (fix the check, "
        f"or declare a true dependency in ALSO with its reason): {blamed}"
    )
