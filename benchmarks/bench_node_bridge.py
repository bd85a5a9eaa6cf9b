"""Throughput and start-up of the Node bridge (pytest_toolconformance.plugins.loaders.node).

Prints calls per second through one node process (a tool call from the Python execute proxy
to the JS handler and back) and the median start-up time of a small plugin (spawn node,
import the plugin, run register, register its tool on a ctx).

    python benchmarks/bench_node_bridge.py [--calls N] [--starts N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_toolconformance.plugins.loaders.node import NodePlugin  # noqa: E402

PLUGIN = ROOT / "tests" / "subjects" / "plugins" / "js" / "conforming" / "index.mjs"


class _Logger:
    def info(self, msg: str) -> None: ...
    def warning(self, msg: str) -> None: ...
    def error(self, msg: str) -> None: ...


class _Ctx:
    """The least ctx the proxy needs: registrations and the three live reads."""

    def __init__(self) -> None:
        self.logger = _Logger()
        self.tools: list[Any] = []

    def register_tool(self, tool: Any, **options: Any) -> None:
        self.tools.append(tool)

    def current_identity(self) -> dict[str, Any]:
        return {"userId": "u1", "accountUserId": "u1", "owner": False, "admin": False}

    def current_access(self) -> dict[str, Any]:
        return {"admin": False, "projectIds": ["p1"], "readOnly": False, "planMode": False, "roots": ["/work"]}

    def current_account_user_id(self) -> str | None:
        return "u1"


def bench_calls(calls: int) -> tuple[float, int]:
    """Calls per second through one process; also returns the pid to show it never changed."""
    plugin = NodePlugin(PLUGIN, timeout=10)
    ctx = _Ctx()
    try:
        plugin.register(ctx)
        execute = ctx.tools[0].execute
        for i in range(200):  # warm up the JIT on both sides
            execute(f"w{i}", {"value": "warm"})
        pid = plugin.pid
        start = time.perf_counter()
        for i in range(calls):
            execute(f"c{i}", {"value": "hello"})
        elapsed = time.perf_counter() - start
        assert plugin.pid == pid, "the node process changed during the run"
        return calls / elapsed, pid or 0
    finally:
        plugin.close()


def bench_startup(starts: int) -> list[float]:
    """Seconds from NodePlugin() to a registered tool, for a fresh process each time."""
    times = []
    for _ in range(starts):
        plugin = NodePlugin(PLUGIN, timeout=10)
        start = time.perf_counter()
        plugin.register(_Ctx())
        times.append(time.perf_counter() - start)
        plugin.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    rate, pid = bench_calls(args.calls)
    print(f"calls through one node process (pid {pid}): {args.calls} calls, {rate:,.0f} calls/s")
    times = bench_startup(args.starts)
    print(
        f"start-up of {PLUGIN.parent.name} (spawn + import + register), {args.starts} runs: "
        f"median {statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})"
    )


if __name__ == "__main__":
    main()
