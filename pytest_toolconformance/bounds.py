"""Time bounds that measure the subject, not the machine's load: a plugin's steps and a host's requests.

``--toolconformance-timeout`` says how long one step of a plugin (its import, its register, one
call), or one request to a host, may take on an unloaded machine. A busy CI runner gives every
process a fraction of a core, so the same correct step takes several times longer there; a fixed
bound would then report a correct plugin as hung (a host's check as errored), and the verdict would
change with the load. So the kit calibrates at start, as
pytest-benchmark calibrates its timer: it runs a fixed piece of CPU work and compares the wall time
it took with the CPU time it used. On an idle machine the two are equal; where the kit gets a fifth
of a core they differ fivefold, and every plugin bound and host request bound is stretched by that
factor (capped), printed in the header. The kit's own set-up (Node's start, pi's runtime, the
stand-ins) is outside every bound: it is loaded before the plugin's clock starts (docs/readings.md,
"Bounds").

A step that still runs out of its bound is retried once with :data:`RETRY_FACTOR` times the bound;
if it runs out again it is *errored* (:class:`~pytest_toolconformance.findings.StepOutOfTime`),
never a rule's failure.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import pytest

#: A step that ran out of its bound is tried once more with this many times the bound.
RETRY_FACTOR = 3.0
#: No calibration stretches a bound further than this.
MAX_FACTOR = 8.0
#: The kit's own set-up (Node's start, importing pi's runtime) gets this many plugin bounds, at least
#: :data:`KIT_SETUP_FLOOR` seconds: it is never the plugin's time, only a guard against a stuck kit.
KIT_SETUP_BOUNDS = 12.0
KIT_SETUP_FLOOR = 60.0
_SPIN_SECONDS = 0.015
_ROUNDS = 3


@dataclass(frozen=True)
class Calibration:
    """How much slower than an idle machine this one runs the kit's processes now."""

    factor: float
    wall: float
    cpu: float

    def bound(self, timeout: float) -> float:
        """The bound of one plugin step on this machine now, for ``timeout`` on an idle one."""
        return round(timeout * self.factor, 1)

    def sentence(self, timeout: float, what: str = "plugin step") -> str:
        """The header's line: ``what`` ("plugin step", "host request") may take this long now."""
        if self.factor <= 1.0:
            return f"{what} bound {self.bound(timeout):g} s (--toolconformance-timeout; this machine is not loaded)"
        return (
            f"{what} bound {self.bound(timeout):g} s: --toolconformance-timeout={timeout:g} x {self.factor:g} "
            f"for this machine's load (a fixed piece of work took {self.wall * 1000:.0f} ms for "
            f"{self.cpu * 1000:.0f} ms of CPU); "
            # Only a plugin step is retried; a host request out of time is errored at once.
            + (f"a step out of time is retried once with x{RETRY_FACTOR:g}, then errored" if what == "plugin step"
               else "a request out of time is errored")
        )


def _spin(seconds: float) -> tuple[float, float]:
    """Burn ``seconds`` of this thread's CPU time; return (wall, cpu) it took."""
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    x = 0
    while time.thread_time() - cpu0 < seconds:
        for i in range(2000):
            x ^= i
    return time.perf_counter() - wall0, time.thread_time() - cpu0


def calibrate() -> Calibration:
    """Measure how much the machine's load slows the kit now (the median of a few short rounds)."""
    rounds = [_spin(_SPIN_SECONDS) for _ in range(_ROUNDS)]
    wall = statistics.median(w for w, _ in rounds)
    cpu = statistics.median(c for _, c in rounds)
    ratio = wall / cpu if cpu > 0 else 1.0
    # Below 1.5 is noise of an idle machine: the bound stays the one given. Rounded up to halves so that
    # near-equal loads give one bound.
    factor = 1.0 if ratio < 1.5 else min(MAX_FACTOR, _half_up(ratio))
    return Calibration(factor, wall, cpu)


def fixed(factor: float) -> Calibration:
    """A calibration taken elsewhere (an xdist worker takes its controller's, so a run has one bound)."""
    return Calibration(max(1.0, min(MAX_FACTOR, float(factor))), 0.0, 0.0)


def kit_setup_bound(bound: float) -> float:
    """The guard on the kit's own set-up in a plugin process: never counted against the plugin."""
    return max(KIT_SETUP_FLOOR, KIT_SETUP_BOUNDS * bound)


def _half_up(value: float) -> float:
    return -(-value * 2 // 1) / 2


#: The run's calibration, kept on its config.
CALIBRATION_KEY = pytest.StashKey[Calibration]()
#: Where an xdist controller hands its calibration factor to its workers.
WORKER_FACTOR = "toolconformance_bound_factor"


def configure(config: pytest.Config) -> Calibration:
    """Calibrate once per run (an xdist worker takes its controller's factor) and keep it on ``config``."""
    workerinput = getattr(config, "workerinput", None)
    if isinstance(workerinput, dict) and WORKER_FACTOR in workerinput:
        calibration = fixed(workerinput[WORKER_FACTOR])
    else:
        calibration = calibrate()
    config.stash[CALIBRATION_KEY] = calibration
    return calibration


def of(config: pytest.Config) -> Calibration:
    """The run's calibration; an uncalibrated run (the fixtures used without --toolconformance) gets none."""
    return config.stash.get(CALIBRATION_KEY, Calibration(1.0, 0.0, 0.0))
