"""A run with and without ``PYTHONDONTWRITEBYTECODE=1``, which many CI images set.

pytest rewrites the asserts of every module of a plugin's distribution and, with that variable set,
cannot cache the result, so each run would recompile the kit's modules; the kit opts its modules out
(pytest_toolconformance/__init__.py). This times, median of ``--runs`` alternated runs from an empty
folder, the main job (``pytest --toolconformance``) and a one-plugin check, each with the variable
and without, and prints the ratios (aim: within 10 %).

    python benchmarks/bench_bytecode.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "subjects" / "plugins" / "js" / "conforming"
NODE_MODULES = ROOT / "tests" / "node_modules"


def timed(argv: list[str], cwd: Path, no_bytecode: bool) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    shutil.rmtree(cwd / ".pytest_cache", ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv], cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(argv)} exited {done.returncode}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="alternated runs of each command (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bytecode-") as tmp:
        work = Path(tmp)
        plugin = work / "myplugin"
        shutil.copytree(PLUGIN, plugin)
        shutil.copytree(PLUGIN.parent / "_lib", work / "_lib")
        (plugin / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
        commands = {"pytest --toolconformance": (["--toolconformance"], work),
                    "pytest --toolconformance-plugin=.": (["--toolconformance-plugin=."], plugin)}
        print(f"median of {args.runs} alternated runs, load average {os.getloadavg()[0]:.1f}")
        print(f"  {'command':36} {'bytecode s':>10} {'no bytecode s':>13} {'ratio':>6}")
        for name, (argv, cwd) in commands.items():
            for warm in (False, True):
                timed(argv, cwd, warm)
            with_cache, without = [], []
            for _ in range(args.runs):
                with_cache.append(timed(argv, cwd, False))
                without.append(timed(argv, cwd, True))
            a, b = statistics.median(with_cache), statistics.median(without)
            print(f"  {name:36} {a:10.2f} {b:13.2f} {b / a:6.2f}")


if __name__ == "__main__":
    main()
