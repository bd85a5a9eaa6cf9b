"""Proof by mutants: every host rule has a broken host that the suites catch on that rule, and only there.

A mutant module (tests/subjects/mutants/) defines ``RULE``, the one rule it breaks, ``factory()``, and
optionally ``ALSO``: ``{rule: reason}`` for rules whose checks truly depend on the broken
behaviour. The suites run against every mutant: the mutant must turn ``RULE`` red and no
other rule but those it declares, as the kit's report says. A check blocked by a rule that fails in
the same run is not red (it is reported ``blocked by RULE``), so it needs no declaration; one blocked
by a rule that does not fail counts against its own rule (report/model.py, ``resolve_blocks``).

A mutant runs the checks that reach a method it overrides; every other check is proven to end as
against the reference host, where it passes (mutant_reach.py says how, and when a mutant runs every
check instead). ``TOOLCONFORMANCE_MUTANT_AUDIT=1`` runs every check against every mutant and tries
that proof.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from hypothesis import Phase
from hypothesis import settings as hypothesis_settings

import tests.subjects.mutants as mutants_pkg
from pytest_toolconformance.report.hooks import PLUGIN_NAME
from pytest_toolconformance.rules import all_rules, host_rules
from tests.kit.suites import mutant_reach


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
#: ``TOOLCONFORMANCE_MUTANT_AUDIT=1``: every mutant runs every check, and a check its selection would
#: leave out (mutant_reach.py) must not fail: the selection's proof, tried. Run it after changing the
#: reference host's structure or the mutants' plumbing.
AUDIT = os.environ.get("TOOLCONFORMANCE_MUTANT_AUDIT") == "1"
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


class ReportOfTheRun:
    """Keeps the kit's report of an inner run: which rules are red is the report's verdict, decided once
    every outcome is known (a check blocked by a rule that does not fail counts against its own)."""

    def __init__(self) -> None:
        self.report: dict[str, Any] | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.report = session.config.pluginmanager.get_plugin(PLUGIN_NAME).report


def _red_rules(kept: ReportOfTheRun) -> tuple[dict[str, list[str]], list[str]]:
    """Per red (failed or errored) rule in the kit's report, the checks that decided it."""
    assert kept.report is not None, "the inner run wrote no report"
    rules: dict[str, list[str]] = {}
    names: list[str] = []
    for entry in kept.report["rules"]:
        if entry["status"] in ("failed", "errored"):
            rules[entry["id"]] = [nodeid.rsplit("::", 1)[-1] for nodeid in entry["decided_by"]]
            names += [n for n in entry["decided_by"] if n not in names]
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
REFERENCE_HOST = "pytest_toolconformance.host.inprocess:factory"
TIMING_CHECK = "test_composition_time_per_tool_does_not_grow_with_the_catalog"


def _runs_the_timing_check(module: ModuleType) -> bool:
    return module.RULE == "COST-1" or "COST-1" in also(module)


def _mutant_run(pytester: pytest.Pytester, profile: str, host: str, *options: str,
                plugins: Sequence[object] = ()) -> pytest.HookRecorder:
    """The host suites against ``host`` with the mutants' settings (the reach recording's run too);
    ``plugins`` may leave checks out (mutant_reach.SelectChecks)."""
    return pytester.inline_run(
        "--toolconformance",
        f"--toolconformance-host={host}",
        f"--toolconformance-max-examples={EXAMPLES}",
        f"--hypothesis-profile={profile}",
        "-p",
        "no:cacheprovider",
        *options,
        plugins=list(plugins),
    )


def _changed_points(module: ModuleType) -> frozenset[mutant_reach.Point]:
    adapter = module.factory()
    try:
        return mutant_reach.changed_points(module, adapter)
    finally:
        adapter.close()


_REACH = pytest.StashKey[mutant_reach.ReachMap]()


def _reach(request: pytest.FixtureRequest, pytester: pytest.Pytester, profile: str) -> mutant_reach.ReachMap:
    """What each check reaches against the reference host, recorded once a process (mutant_reach.py)."""
    if _REACH not in request.config.stash:
        points: set[mutant_reach.Point] = set()
        for module in MUTANTS:
            with contextlib.suppress(mutant_reach.Untraceable):
                points |= _changed_points(module)
        recorder = mutant_reach.ReachRecorder()
        with mutant_reach.recording(points, recorder) as everywhere:
            _mutant_run(pytester, profile, REFERENCE_HOST, "-k", f"not {TIMING_CHECK}", plugins=[recorder])
        assert recorder.ran and not recorder.failed, (
            f"the reference host failed checks with the mutants' settings: {sorted(recorder.failed)}"
        )
        request.config.stash[_REACH] = recorder.reach_map(everywhere)
    return request.config.stash[_REACH]


@pytest.mark.parametrize("module", MUTANTS, ids=[m.__name__.rsplit(".", 1)[-1] for m in MUTANTS])
def test_mutant_is_caught_on_its_rule_and_no_other(
    module: ModuleType, pytester: pytest.Pytester, mutant_profile: str, request: pytest.FixtureRequest
) -> None:
    timing = () if _runs_the_timing_check(module) else ("-k", f"not {TIMING_CHECK}")
    try:
        points = _changed_points(module)
    except mutant_reach.Untraceable:
        keep = None  # every check
    else:
        keep = _reach(request, pytester, mutant_profile).checks_to_run(points)
    kept = ReportOfTheRun()
    if keep is None or AUDIT:
        audit = mutant_reach.ReachRecorder()
        _mutant_run(pytester, mutant_profile, f"{module.__name__}:factory", *timing, plugins=[audit, kept])
        unforeseen = sorted(key for key in audit.failed if keep is not None and not keep(key))
        assert not unforeseen, (
            f"{module.__name__}: checks the selection leaves out failed in a whole run (mutant_reach.py's "
            f"proof does not hold for this mutant; find what it changes that no call shows): {unforeseen}"
        )
    else:
        _mutant_run(pytester, mutant_profile, f"{module.__name__}:factory", *timing,
                    plugins=[mutant_reach.SelectChecks(keep), kept])
    rules, failed = _red_rules(kept)
    assert failed, f"{module.__name__} breaks {module.RULE} but no check failed"
    assert module.RULE in rules, f"{module.__name__}: failures {failed} carry rules {sorted(rules)}, not {module.RULE}"
    blamed = {rule: checks for rule, checks in rules.items() if rule != module.RULE and rule not in also(module)}
    assert not blamed, (
        f"{module.__name__} breaks {module.RULE} only, yet these rules went red too (fix the check, "
        f"or declare a true dependency in ALSO with its reason): {blamed}"
    )
