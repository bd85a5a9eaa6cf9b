"""The reference host in process and over the wire must give the same outcome, check by check."""

from __future__ import annotations

import shlex
import sys

# Imported here, outside the inner runs: pytester drops the modules an inline run imported, and a
# second run would mix two copies of hypothesis ("returned non-strategy CompositeStrategy").
import hypothesis.strategies  # noqa: F401
import pytest

from pytest_toolconformance.host.wire.outcomes import is_errored

WIRE = "exec:" + shlex.join([sys.executable, "-m", "reference_host.wire"])


def _outcomes(reprec: pytest.HookRecorder) -> dict[str, str]:
    """nodeid -> passed, failed, skipped or errored (the worst phase wins)."""
    rank = {"passed": 0, "skipped": 1, "failed": 2, "errored": 3}
    out: dict[str, str] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.failed:
            outcome = "errored" if is_errored(report) else "failed"
        elif report.skipped:
            outcome = "skipped"
        elif report.when == "call":
            outcome = "passed"
        else:
            continue
        if rank[outcome] >= rank.get(out.get(report.nodeid, "passed"), 0):
            out[report.nodeid] = outcome
    return out


def test_wire_run_equals_in_process_run(pytester: pytest.Pytester) -> None:
    common = ("--toolconformance", "-p", "no:cacheprovider")
    local = _outcomes(pytester.inline_run(*common))
    wire = _outcomes(pytester.inline_run(*common, f"--toolconformance-host={WIRE}"))
    assert local, "the in-process run collected no check"
    assert sorted(wire) == sorted(local), "the two runs collected different checks"
    differ = {nodeid: (local[nodeid], wire[nodeid]) for nodeid in local if local[nodeid] != wire[nodeid]}
    assert not differ, f"in process vs over the wire: {differ}"
    assert "passed" in local.values()
