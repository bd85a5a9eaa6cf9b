"""A load like a shared CI runner's, to run the kit (or its own tests) under.

Busy loops alone do not reproduce what a shared runner does to the kit: there, other jobs install
npm packages and run Node.js at the same time, so the page cache is churned and file reads wait on
the disk. This generator runs, until stopped or for ``--seconds``:

- ``--busy`` busy-loop processes per core (CPU contention);
- ``--churn`` processes that each write, fsync, read back and delete a tree of small files, as an
  npm install does (I/O and page-cache contention);
- ``--node`` processes that each start Node.js and import a module tree over and over (what a
  second kit run on other plugins does), when a Node.js is found.

Use it around any command::

    python benchmarks/load.py --seconds 600 -- python -m pytest tests/kit/plugins/test_plugin_corpus.py

or from Python with :func:`machine_load`. It prints the load average it reached.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def _busy() -> None:
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003


def _churn(root: str) -> None:
    root = tempfile.mkdtemp(dir=root)  # each writer its own tree
    payload = os.urandom(4096)
    n = 0
    while True:
        folder = Path(root) / f"pkg{n % 4}"
        shutil.rmtree(folder, ignore_errors=True)
        for i in range(400):
            sub = folder / f"d{i % 20}"
            sub.mkdir(parents=True, exist_ok=True)
            path = sub / f"f{i}.js"
            with open(path, "wb") as handle:
                handle.write(payload)
                if i % 50 == 0:
                    handle.flush()
                    os.fsync(handle.fileno())
        for path in folder.rglob("*.js"):
            path.read_bytes()
        n += 1


_NODE_SCRIPT = """
const fs = require("fs"), path = require("path");
const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "tcload-"));
for (let i = 0; i < 300; i++) {
  const source = `module.exports = ${i} + require("./m${Math.max(0, i - 1)}.js");`;
  fs.writeFileSync(path.join(dir, `m${i}.js`), source.replace(`require("./m0.js")`, "0"));
}
fs.writeFileSync(path.join(dir, "m0.js"), "module.exports = 0;");
require(path.join(dir, "m299.js"));
fs.rmSync(dir, { recursive: true, force: true });
"""


def _node_loop(node: str) -> None:
    while True:
        subprocess.run([node, "-e", _NODE_SCRIPT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


@contextlib.contextmanager
def machine_load(busy: int = 4, churn: int = 2, node: int = 2) -> Iterator[None]:
    """Keep the machine loaded while the block runs: ``busy`` loops per core, ``churn`` file-tree
    writers and ``node`` Node.js import loops (none where no ``node`` is on PATH)."""
    ctx = multiprocessing.get_context("fork")
    root = tempfile.mkdtemp(prefix="toolconformance-load-")
    procs = [ctx.Process(target=_busy, daemon=True) for _ in range(busy * (os.cpu_count() or 1))]
    procs += [ctx.Process(target=_churn, args=(root,), daemon=True) for _ in range(churn)]
    found = shutil.which("node")
    if found:
        procs += [ctx.Process(target=_node_loop, args=(found,), daemon=True) for _ in range(node)]
    for proc in procs:
        proc.start()
    try:
        yield
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        for proc in procs:
            proc.join(5)
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=4, help="busy loops per core (default 4)")
    parser.add_argument("--churn", type=int, default=2, help="file-tree writers (default 2)")
    parser.add_argument("--node", type=int, default=2, help="Node.js import loops (default 2)")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long (default 600)")
    parser.add_argument("command", nargs="*", help="a command to run under the load (after --)")
    args = parser.parse_args(argv)
    with machine_load(args.busy, args.churn, args.node):
        time.sleep(3)  # let the load build up before the command starts
        print(f"load: load average {os.getloadavg()[0]:.1f} after 3 s", file=sys.stderr, flush=True)
        if args.command:
            started = time.monotonic()
            done = subprocess.run(args.command, check=False, timeout=args.seconds)
            print(
                f"load: command took {time.monotonic() - started:.1f} s, load average {os.getloadavg()[0]:.1f}",
                file=sys.stderr,
                flush=True,
            )
            return done.returncode
        time.sleep(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
