"""Wall time of the full host run against the reference host, and where it goes.

Runs ``python -m pytest --toolconformance -q -p no:cacheprovider --durations=0`` from an empty
temporary folder, ``--repeat`` times, and prints per run the wall time, pytest's own session time
and the summed setup+call time of each suite module (from ``--durations=0``), then the medians.
The gap between wall and session time is interpreter start and plugin loading; collection (the
scenario files, the suites' imports) is inside the session time but in no test's duration.

Target: the median wall time at most 10 s on a quiet 2-core machine, with every mutant
still caught (tests/kit/suites/test_mutants.py). Say how loaded the machine was (the load average is printed
per run) with the figures. On a shared machine the CPU time (user + sys of the pytest process and
its children) is the comparable figure: other work on the cores stretches the wall time, not it.

    python benchmarks/bench_host_run.py [--repeat 3] [-- extra pytest arguments]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

_DURATION = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S+?)::")
_SESSION = re.compile(r"(\d+) passed.* in ([0-9.]+)s")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(extra: list[str]) -> tuple[float, float, float, int, dict[str, float]]:
    """(wall seconds, CPU seconds user + sys, pytest session seconds, checks passed, seconds per suite module)."""
    with tempfile.TemporaryDirectory(prefix="bench-host-run-") as folder:
        started, cpu_before = time.perf_counter(), _children_cpu()
        proc = subprocess.run([sys.executable, "-m", "pytest", "--toolconformance", "-q", "-p", "no:cacheprovider",
                               "--durations=0", *extra], cwd=folder, capture_output=True, text=True, check=False)
        wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if proc.returncode != 0:
        sys.exit(
            f"bench_host_run: the run failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}"
        )
    per_module: dict[str, float] = defaultdict(float)
    for line in proc.stdout.splitlines():
        found = _DURATION.match(line)
        if found:
            per_module[found.group(3)] += float(found.group(1))
    session = _SESSION.search(proc.stdout)
    if session is None:
        sys.exit(f"bench_host_run: no summary line in the output:\n{proc.stdout[-2000:]}")
    return wall, cpu, float(session.group(2)), int(session.group(1)), dict(per_module)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("extra", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}"
    )
    walls, cpus, sessions, modules = [], [], [], defaultdict(list)
    for index in range(args.repeat):
        wall, cpu, session, passed, per_module = one_run(args.extra)
        walls.append(wall)
        cpus.append(cpu)
        sessions.append(session)
        for name, seconds in per_module.items():
            modules[name].append(seconds)
        print(
            f"run {index + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s, session {session:.2f} s, {passed} checks passed, "
            f"load {os.getloadavg()[0]:.1f}"
        )
    print(
        f"median wall {statistics.median(walls):.2f} s, median CPU (user + sys) {statistics.median(cpus):.2f} s, "
        f"median session {statistics.median(sessions):.2f} s"
    )
    for name, seconds in sorted(modules.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {name:40s} {statistics.median(seconds):6.2f} s (setup + call, median)")


if __name__ == "__main__":
    main()
