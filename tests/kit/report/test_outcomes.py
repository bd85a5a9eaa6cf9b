"""The one owner of a check's outcome (pytest_toolconformance/report/outcomes.py): an error that judged no
rule is errored by its base class alone, and the steps run in their written order (errored, new since
the pinned rule set, the kit's own failure text, known deviation)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

#: A conftest that gives the outcome steps the state a run with the kit on gives them (a pinned set that
#: holds test_held and test_not_excused, a deviations file that excuses CAP-1), without running the kit's suites.
JUDGING_CONFTEST = """
from pathlib import Path

from pytest_toolconformance import options
from pytest_toolconformance.report import outcomes
from pytest_toolconformance.report.deviations import load_deviations
from pytest_toolconformance.ruleset import RuleSet


def pytest_configure(config):
    path = Path(__file__).parent / "deviations.toml"
    path.write_text('[[deviation]]\\nrule = "CAP-1"\\nreason = "capped at 1,024 bytes until v3"\\n')
    pinned = RuleSet(name="2001.01", rules=frozenset({"CAP-1", "REG-1"}),
                     checks=frozenset({"test_checks.py::test_held", "test_checks.py::test_not_excused"}))
    outcomes.configure(config, outcomes.Judging(options.Settings(), pinned, load_deviations(path)))
"""

CHECKS = """
import pytest

from pytest_toolconformance import Finding


def _broken():
    raise Finding("CAP-1", "a cut at 1,000 bytes", "a cut at 1,024 bytes")


@pytest.mark.toolconformance("CAP-1")
def test_held():
    _broken()


@pytest.mark.toolconformance("CAP-1")
def test_added_since():
    _broken()


@pytest.mark.toolconformance("REG-1")
def test_not_excused():
    raise Finding("REG-1", "the tool registered", "it was refused")
"""


def test_an_error_of_the_unjudged_family_is_errored_whatever_defines_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_unjudged="""
        from pytest_toolconformance.findings import Unjudged


        class ToolHungHere(Unjudged, Exception):
            pass


        def test_hung():
            raise ToolHungHere("the tool did not answer within 5 s")


        def test_broken():
            assert False, "a failure"
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["ERROR test_unjudged.py::test_hung*", "FAILED test_unjudged.py::test_broken*"])


def test_a_check_new_since_the_pinned_set_leaves_the_gate_before_its_finding_or_a_deviation_counts(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(JUDGING_CONFTEST)
    pytester.makepyfile(test_checks=CHECKS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA", "-W", "ignore::UserWarning")
    # Held and excused: a deviation; added since: new and advisory, though the file excuses its rule;
    # held and not excused: failed, told as the finding and its rerun line alone.
    result.assert_outcomes(xfailed=1, skipped=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*SKIPPED*new since rule set 2001.01 (advisory*): would fail: [[]CAP-1[]] the host under test*",
            '*XFAIL test_checks.py::test_held - known deviation, entry 1 (rule = "CAP-1")*',
        ]
    )
    failure = result.stdout.str().split("test_not_excused", 1)[1]
    assert "[REG-1] the host under test: expected the tool registered" in failure
    assert "rerun: pytest --toolconformance --toolconformance-seed=0 -k" in failure
    assert "def test_not_excused" not in failure  # the finding alone, not the kit's traceback
