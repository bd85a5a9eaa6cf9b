"""COST-1's stopwatch on a process clock that moves in scheduler ticks, as some kernels account CPU time.

A 4 ms tick (a 250 Hz kernel) reads 0 for a small catalog's composition: the best of several such
readings was taken as the time, and a growth over 0 counted as no growth, so a quadratic host passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.inprocess import factory as reference_host
from pytest_toolconformance.suites.host import stopwatch, suite_cost
from tests.subjects.mutants import cost_1_rescans_catalog_per_tool

TICK = 0.004
PROCESS_TIME = time.process_time


def ticking_process_clock() -> float:
    """The process's CPU time as a kernel that counts it in TICK steps reports it."""
    return PROCESS_TIME() // TICK * TICK


@pytest.fixture
def ticking_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every in-process timing of COST-1 reads the ticking clock."""
    clocks = SimpleNamespace(process_time=ticking_process_clock, perf_counter=time.perf_counter)
    monkeypatch.setattr(suite_cost, "time", clocks)


def test_the_step_of_a_ticking_clock_is_found() -> None:
    assert stopwatch.clock_step(ticking_process_clock) == pytest.approx(TICK)
    assert stopwatch.clock_step(time.perf_counter) < 1e-4


def test_a_call_shorter_than_a_tick_is_timed_in_batches() -> None:
    watch = stopwatch.Stopwatch(ticking_process_clock, TICK)
    assert watch.reading(lambda: sum(range(1000))) < 1.5 * TICK  # one reading shows 0 or a whole tick
    seconds, times = watch.repeatable(lambda: sum(range(1000)))
    assert times > 1
    assert 0 < seconds < TICK


def test_a_call_run_once_is_timed_by_the_mean_of_its_rounds() -> None:
    watch = stopwatch.Stopwatch(ticking_process_clock, TICK)
    work: Callable[[], int] = lambda: sum(range(20000))  # noqa: E731 - the one call timed
    readings = [watch.reading(work) for _ in range(3)]
    alone = stopwatch.Stopwatch(time.process_time).repeatable(work)[0]
    assert watch.once_each(lambda: work, readings) == pytest.approx(alone, rel=0.5)


def test_a_clock_that_never_moves_is_errored_not_passed() -> None:
    watch = stopwatch.Stopwatch(lambda: 1.0, TICK)
    with pytest.raises(stopwatch.ClockTooCoarse, match="COST-1 could not time the host"):
        watch.repeatable(lambda: None)
    with pytest.raises(stopwatch.ClockTooCoarse):
        watch.once_each(lambda: lambda: None, [0.0])


@pytest.mark.usefixtures("ticking_clock")
def test_a_quadratic_host_grows_past_the_limit_on_a_ticking_clock() -> None:
    client = HostClient(cost_1_rescans_catalog_per_tool.factory())
    growth = suite_cost.growths(suite_cost.measure(client, (suite_cost.SMALL, suite_cost.SMALL * suite_cost.FACTOR)))
    assert growth["later"] > suite_cost.LIMIT, growth


@pytest.mark.usefixtures("ticking_clock")
def test_the_reference_host_stays_within_the_limit_on_a_ticking_clock() -> None:
    client = HostClient(reference_host())
    growth = suite_cost.growths(suite_cost.measure(client, (suite_cost.SMALL, suite_cost.SMALL * suite_cost.FACTOR)))
    assert max(growth.values()) <= suite_cost.LIMIT, growth
