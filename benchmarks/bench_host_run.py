"""Wall and CPU time of the full host run against the reference host, against a bare ``pytest --co``.

Each round runs, from one empty temporary folder, ``python -m pytest --co -q -p no:cacheprovider``
(the interpreter, pytest and every plugin it loads, the kit's included, collecting nothing) and then
``python -m pytest --toolconformance -q -p no:cacheprovider --durations=0``, and prints both times
and their ratio; then the medians, and the summed setup+call time of each suite module (from
``--durations=0``). The gap between wall and session time is interpreter start and plugin loading;
collection (the scenario files, the suites' imports) is inside the session time but in no test's
duration.

The aim: the run at most 4x the ``--co`` in the same folder. On a shared machine compare CPU times
(user + sys of pytest and its children): other work on the cores stretches the wall time, not them;
the load average is printed per round. ``--tree NAME=PATH`` (repeatable) runs the kit from the source
tree PATH (put first on PYTHONPATH) and alternates the trees round by round, so two commits are
measured under the same load: ``git archive <commit> | tar -x -C PATH`` makes one.

Hypothesis' cases of the shared properties are kept across runs in the user's cache
(profile.keep_draws_to_the_run), as a user's second run finds them; ``--cold`` empties that store
before every run.

    python benchmarks/bench_host_run.py [--repeat 3] [--tree before=DIR --tree after=DIR] [--cold] [-- pytest args]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

_DURATION = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S+?)::")
_SESSION = re.compile(r"(\d+) passed.* in ([0-9.]+)s")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Round:
    """One ``--co`` and one run, in the same folder, one after the other."""

    co_wall: float
    co_cpu: float
    wall: float
    cpu: float
    session: float
    passed: int
    load: float
    per_module: dict[str, float] = field(default_factory=dict)


def _timed(args: list[str], folder: str, env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    started, cpu_before = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args], cwd=folder, env=env, capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, _children_cpu() - cpu_before, proc


def _kept_draws() -> Path:
    return Path(tempfile.gettempdir()) / f"toolconformance-hypothesis-cache-{os.getuid()}" / "draws"


def one_round(tree: str | None, extra: list[str], cold: bool) -> Round:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (tree, env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="bench-host-run-") as folder:
        co_wall, co_cpu, co = _timed(["--co", "-q", "-p", "no:cacheprovider"], folder, env)
        if co.returncode not in (0, 5):  # 5: no tests collected, as in an empty folder
            sys.exit(
                f"bench_host_run: pytest --co failed (exit {co.returncode}):\n{co.stdout[-2000:]}{co.stderr[-2000:]}"
            )
        if cold:
            shutil.rmtree(_kept_draws(), ignore_errors=True)
        args = ["--toolconformance", "-q", "-p", "no:cacheprovider", "--durations=0", *extra]
        wall, cpu, proc = _timed(args, folder, env)
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
    return Round(co_wall, co_cpu, wall, cpu, float(session.group(2)), int(session.group(1)), os.getloadavg()[0],
                 dict(per_module))  # fmt: skip


def _median(rounds: list[Round], attribute: str) -> float:
    return statistics.median(getattr(r, attribute) for r in rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="measure the kit of this source tree (repeatable: the trees alternate)")  # fmt: skip
    parser.add_argument("--cold", action="store_true", help="empty the kept Hypothesis draws before each run")
    parser.add_argument("extra", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    trees = [tuple(t.split("=", 1)) for t in args.tree] or [("installed", "")]
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}"
    )
    rounds: dict[str, list[Round]] = {name: [] for name, _ in trees}
    for index in range(args.repeat):
        for name, path in trees:
            r = one_round(path or None, args.extra, args.cold)
            rounds[name].append(r)
            print(
                f"round {index + 1} {name}: --co {r.co_wall:.2f} s wall / {r.co_cpu:.2f} s CPU; run {r.wall:.2f} s wall"
                f" / {r.cpu:.2f} s CPU (session {r.session:.2f} s, {r.passed} checks passed); ratio "
                f"{r.wall / r.co_wall:.2f} wall / {r.cpu / r.co_cpu:.2f} CPU; load {r.load:.1f}"
            )
    for name, done in rounds.items():
        ratios_wall = [r.wall / r.co_wall for r in done]
        ratios_cpu = [r.cpu / r.co_cpu for r in done]
        print(
            f"{name}: median --co {_median(done, 'co_wall'):.2f} s wall / {_median(done, 'co_cpu'):.2f} s CPU; "
            f"median run {_median(done, 'wall'):.2f} s wall / {_median(done, 'cpu'):.2f} s CPU "
            f"(session {_median(done, 'session'):.2f} s); median ratio {statistics.median(ratios_wall):.2f} wall / "
            f"{statistics.median(ratios_cpu):.2f} CPU; load {min(r.load for r in done):.1f} to "
            f"{max(r.load for r in done):.1f}"
        )
        modules: dict[str, list[float]] = defaultdict(list)
        for r in done:
            for module, seconds in r.per_module.items():
                modules[module].append(seconds)
        for module, seconds in sorted(modules.items(), key=lambda kv: -statistics.median(kv[1])):
            print(f"  {module:40s} {statistics.median(seconds):6.2f} s (setup + call, median)")


if __name__ == "__main__":
    main()
