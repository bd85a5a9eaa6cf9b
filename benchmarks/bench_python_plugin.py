"""A Python plugin in its own confined process against the same plugin imported into the
kit's process: what the process costs at start-up and per call, and in a whole one-plugin run.

1. Start-up: ``load_plugin`` + ``register`` into a fresh reference host, median of ``--starts``.
2. Calls: ``--calls`` calls of the example tool through the host, calls per second.
3. A whole run: ``python -m pytest --toolconformance-plugin=conforming.py`` from an empty folder,
   median wall and CPU seconds of ``--runs`` (the bridged run only: the run has no in-process mode;
   compare with the same script at the commit before, whose runs were in-process).

Prints ratios bridged / in-process; the figures are in docs/performance.md.

    python benchmarks/bench_python_plugin.py [--starts N] [--calls N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_toolconformance.plugins.loaders import load_plugin  # noqa: E402
from reference_host import Host  # noqa: E402

PLUGIN = ROOT / "tests" / "subjects" / "plugins" / "python" / "conforming.py"


def start(in_process: bool) -> tuple[float, object, object]:
    began = time.perf_counter()
    host = Host()
    loaded = load_plugin(PLUGIN, in_process=in_process)
    host.install_plugin(loaded.plugin, name=loaded.name)
    return time.perf_counter() - began, host, loaded


def starts(in_process: bool, count: int) -> float:
    seconds = []
    for _ in range(count):
        took, _, loaded = start(in_process)
        seconds.append(took)
        close = getattr(loaded.plugin, "close", None)  # type: ignore[attr-defined]
        if close is not None:
            close()
    return statistics.median(seconds)


def calls_per_second(in_process: bool, count: int) -> float:
    _, host, loaded = start(in_process)
    execute = host.registry.get("MyTool").tool.execute  # type: ignore[attr-defined]
    began = time.perf_counter()
    for index in range(count):
        outcome = execute(f"c{index}", {"value": "hi"})
        if hasattr(outcome, "__await__"):
            import asyncio

            asyncio.run(outcome)
    rate = count / (time.perf_counter() - began)
    close = getattr(loaded.plugin, "close", None)  # type: ignore[attr-defined]
    if close is not None:
        close()
    return rate


def whole_runs(count: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(count):
        with tempfile.TemporaryDirectory() as folder:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            began = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", f"--toolconformance-plugin={PLUGIN}", "-q",
                            "-p", "no:cacheprovider"], cwd=folder, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            walls.append(time.perf_counter() - began)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=9)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"machine load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    bridged, in_process = starts(False, args.starts), starts(True, args.starts)
    print(f"start-up (load + register): bridged {bridged * 1000:.0f} ms, in-process {in_process * 1000:.0f} ms, "
          f"ratio {bridged / in_process:.1f}, the process costs {1000 * (bridged - in_process):.0f} ms")
    rate_bridged, rate_in = calls_per_second(False, args.calls), calls_per_second(True, args.calls)
    print(f"calls: bridged {rate_bridged:.0f}/s, in-process {rate_in:.0f}/s, ratio {rate_in / rate_bridged:.1f} "
          f"({1000 / rate_bridged - 1000 / rate_in:.2f} ms more a call)")
    wall, cpu = whole_runs(args.runs)
    print(f"whole run (pytest --toolconformance-plugin=conforming.py): median {wall:.2f} s wall, {cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
