"""COST-1's stopwatch: times a host's compositions whatever the resolution of the clock it reads.

A process's CPU clock is not always fine: a kernel that charges CPU time in scheduler ticks (4 ms at
250 Hz) reads 0 for a 1 ms composition and 4 ms for a 3 ms one. The best of several such readings is
then 0 for a small catalog, and a host whose time per tool grows tenfold would look as if it did not
grow at all. So the stopwatch first finds the smallest step its clock takes, and counts a timing only
when it spans at least STEPS of them (a quantization error of a few percent at most):

- a call that can be repeated (a later composition) is timed in batches, doubled until a batch
  spans STEPS steps, and the time of one call is the batch's over its size;
- a call that cannot (a session's first composition after an install, one a round) is timed alone
  when it spans STEPS steps; when it does not, the mean of enough of its readings is taken (a tick
  lands at a random moment of a call, so the mean of tick-counted readings is the call's time).

On a fine clock (nanoseconds, as on most machines) every timing spans STEPS steps at once and the
stopwatch times each call alone, as a plain ``clock() - start`` would. A clock that still reads 0
after all that cannot time the host: :class:`ClockTooCoarse`, reported *errored*, never a pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pytest_toolconformance.findings import Unjudged

#: A timing counts when it spans at least this many steps of its clock.
STEPS = 25
#: The most calls one batch, or one mean of first compositions, may take before the clock is given up on.
MOST_CALLS = 4096
#: How long the stopwatch spins to find its clock's step (a 10 ms tick is seen several times in it).
STEP_SEARCH_SECONDS = 0.2


class ClockTooCoarse(Unjudged, Exception):
    """The clock could not time a composition (it read 0 over MOST_CALLS calls): COST-1 judged nothing."""


def clock_step(clock: Callable[[], float], *, seconds: float = STEP_SEARCH_SECONDS) -> float:
    """The smallest step ``clock`` is seen to take while spinning for at most ``seconds`` (wall clock)."""
    deadline = time.perf_counter() + seconds
    smallest = float("inf")
    for _ in range(5):
        before = after = clock()
        while after == before and time.perf_counter() < deadline:
            after = clock()
        if after > before:
            smallest = min(smallest, after - before)
    return smallest if smallest != float("inf") else seconds


class Stopwatch:
    """Times calls on ``clock``, which takes a step of ``step`` seconds (measured when not given)."""

    def __init__(self, clock: Callable[[], float], step: float | None = None) -> None:
        self.clock = clock
        self.step = clock_step(clock) if step is None else step
        #: The shortest reading that counts alone.
        self.floor = STEPS * self.step

    def reading(self, call: Callable[[], Any], times: int = 1) -> float:
        """The clock's reading over ``times`` calls of ``call``, as it is (a step may hide in it)."""
        start = self.clock()
        for _ in range(times):
            call()
        return self.clock() - start

    def repeatable(self, call: Callable[[], Any], times: int = 1) -> tuple[float, int]:
        """Seconds one call of ``call`` takes, from a batch of ``times`` calls doubled until it spans the
        floor; and the batch size it took (the next timing of the same call starts there)."""
        while True:
            taken = self.reading(call, times)
            if taken >= self.floor or times >= MOST_CALLS:
                return self._per_call(taken, times), times
            times *= 2

    def once_each(self, fresh: Callable[[], Callable[[], Any]], readings: list[float]) -> float:
        """Seconds a call that runs once takes, from the ``readings`` of earlier rounds: the best of
        them when each spans the floor, else the mean of them and of as many more rounds (``fresh()``
        prepares one, untimed, and gives the call) as make them span it together."""
        if readings and min(readings) >= self.floor:
            return min(readings)
        taken = list(readings)
        while sum(taken) < self.floor and len(taken) < MOST_CALLS:
            taken.append(self.reading(fresh()))
        return self._per_call(sum(taken), len(taken))

    def _per_call(self, reading: float, times: int) -> float:
        if reading <= 0:
            raise ClockTooCoarse(
                f"COST-1 could not time the host: its clock (a step of {self.step:.3g} s) read 0 over {times} "
                "compositions, so no growth could be measured. Rerun on a machine whose process clock is "
                "finer, or time the host over the wire (its wall clock is used there)."
            )
        return reading / times
