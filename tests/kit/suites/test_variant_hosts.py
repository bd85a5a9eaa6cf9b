"""Conforming hosts that choose otherwise than the reference host where the seed leaves the choice
open (tests/subjects/hosts/): the host suites leave every one of them green.

Each is the reference host with one such choice changed, so a check that goes red on one reads the
seed further than its sentence (every real host got the same false findings)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import tests.subjects.hosts as hosts_pkg
from tests.kit.suites.test_mutants import EXAMPLES, ReportOfTheRun, _red_rules

VARIANTS = sorted(m.name for m in pkgutil.iter_modules(hosts_pkg.__path__) if not m.name.startswith("_"))


def test_there_are_variant_hosts() -> None:
    assert "last_wins" in VARIANTS


@pytest.mark.parametrize("name", VARIANTS)
def test_a_conforming_variant_host_conforms(name: str, pytester: pytest.Pytester) -> None:
    module = importlib.import_module(f"tests.subjects.hosts.{name}")
    kept = ReportOfTheRun()
    reprec = pytester.inline_run("--toolconformance", f"--toolconformance-host={module.__name__}:factory",
                                 f"--toolconformance-max-examples={EXAMPLES}", "-p", "no:cacheprovider", plugins=[kept])
    rules, failed = _red_rules(kept)
    assert not failed, f"{name} conforms, yet these rules went red: {rules}"
    passed = [r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call" and r.passed]
    assert len(passed) > 600, f"the suites ran only {len(passed)} checks against {name}"


def test_the_collision_scenarios_skip_on_a_host_that_declares_no_policy(pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run("--toolconformance", "--toolconformance-host=tests.subjects.hosts.undeclared_last_wins"
                                 ":factory", "-k", "collision", "-p", "no:cacheprovider")
    skipped = [r for r in reprec.getreports("pytest_runtest_logreport") if r.skipped]
    assert skipped and all("declares no collision policy" in str(r.longrepr) for r in skipped), skipped
