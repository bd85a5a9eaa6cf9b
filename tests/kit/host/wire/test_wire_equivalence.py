"""The reference host in process and over the wire must give the same outcome, check by check."""

from __future__ import annotations

import shlex
import sys

# Imported here, outside the inner runs: pytester drops the modules an inline run imported, and a
# second run would mix two copies of hypothesis ("returned non-strategy CompositeStrategy").
import hypothesis.strategies  # noqa: F401
import pytest

from pytest_toolconformance.report.outcomes import is_errored

WIRE = "exec:" + shlex.join([sys.executable, "-m", "pytest_toolconformance.host.wire.reference_server"])


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


#: COST-1 is left out of both runs: it times a host process by the wall clock, so its outcome over the
#: wire depends on the machine's load, not on the protocol, and at 3,000 tools a round it was most of
#: the wire run's time on a loaded machine (minutes). Every other check is compared.
TIMING_CHECK = "test_composition_time_per_tool_does_not_grow_with_the_catalog"


#: Examples per property in both runs: the comparison is check by check, and every check sends its
#: requests over the wire at 10 as at 50 (the default run of the reference host is
#: test_mutants.test_reference_host_passes_every_host_check); 50 made this the own suite's longest test.
EXAMPLES = "10"


def test_wire_run_equals_in_process_run(pytester: pytest.Pytester) -> None:
    common = ("--toolconformance", "-p", "no:cacheprovider", "-k", f"not {TIMING_CHECK}",
              f"--toolconformance-max-examples={EXAMPLES}")
    local = _outcomes(pytester.inline_run(*common))
    wire = _outcomes(pytester.inline_run(*common, f"--toolconformance-host={WIRE}"))
    assert local, "the in-process run collected no check"
    assert sorted(wire) == sorted(local), "the two runs collected different checks"
    differ = {nodeid: (local[nodeid], wire[nodeid]) for nodeid in local if local[nodeid] != wire[nodeid]}
    assert not differ, f"in process vs over the wire: {differ}"
    assert "passed" in local.values()
