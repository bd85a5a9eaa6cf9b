"""A wire host that faults once gets verdicts for everything its fault did not touch.

The fault budget counts checks in a row that meet a fault: a hang on one request errors the check
that sent it, the host is restarted for the next check, and every other check keeps its verdict.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - imported outside the inner run (see test_wire_broken_hosts)
import pytest

from pytest_toolconformance.options import DEFAULT_TIMEOUT
from pytest_toolconformance.report.outcomes import is_errored
from tests.paths import WIRE_HOSTS

HOSTS = WIRE_HOSTS


@pytest.mark.parametrize("times", [1, 6])
def test_a_host_hanging_on_its_10th_request_errors_only_the_checks_that_met_it(
        pytester: pytest.Pytester, tmp_path: Path, times: int) -> None:
    """Once, or six times (more than the budget of three in a row; checks without a fault lie between)."""
    marker = tmp_path / "state"
    command = shlex.join([sys.executable, str(HOSTS / "hang_once_host.py"), str(marker), str(times)])
    reprec = pytester.inline_run(
        "--toolconformance", f"--toolconformance-host=exec:{command}", f"--toolconformance-timeout={DEFAULT_TIMEOUT:g}",
        "--toolconformance-max-examples=5", "-k", "EXT or CAP", "-p", "no:cacheprovider",
    )
    assert marker.read_text("utf-8").split()[1] == str(times), "the host did not hang as often as asked"
    reports = [r for r in reprec.getreports("pytest_runtest_logreport")]
    errored = [r for r in reports if r.failed and is_errored(r)]
    failed = [r.nodeid for r in reports if r.failed and not is_errored(r)]
    assert not failed, f"checks reported failed, not errored: {failed}"
    met = {r.nodeid for r in errored}
    assert len(met) == times, sorted(met)
    assert all("did not answer in time" in str(r.longrepr) for r in errored)
    assert not any("gave up" in str(r.longrepr) for r in errored)
    passed = {r.nodeid for r in reports if r.when == "call" and r.passed}
    checks = {r.nodeid for r in reports}
    assert passed == checks - met - {r.nodeid for r in reports if r.skipped}
    assert len(passed) > 100, "the rest of the run has verdicts"
