"""Requests per second over the wire protocol, against the reference host
(``python -m pytest_toolconformance.host.wire.reference_server``).

One kit-side :class:`~pytest_toolconformance.host.wire.client.WireHostAdapter` drives one host process,
one request at a time (the protocol is strictly request/answer), every answer validated against
its schema as in a real run. Prints, per request kind, requests per second over the wire and in
process (the same :class:`reference_host.facade.JsonHost` called directly), and the median time to
start a host and handshake.

    python benchmarks/bench_wire.py [--requests N] [--starts N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter  # noqa: E402
from pytest_toolconformance.host.wire.client import WireHostAdapter  # noqa: E402

COMMAND = [sys.executable, "-m", "pytest_toolconformance.host.wire.reference_server"]
PLUGIN: dict[str, Any] = {
    "name": "bench",
    "tools": [
        {
            "name": "Echo",
            "label": "Echo",
            "description": "Echoes.",
            "parameters": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
            "handler": [{"op": "echo"}],
        }
    ],
}


def _prepare(adapter: Any, root: str) -> str:
    adapter.reset()
    adapter.install_plugin(PLUGIN)
    return str(adapter.open_session({"identity": {"userId": "u1"}, "sandboxRoot": root})["session"])


def _kinds(adapter: Any, session: str) -> dict[str, Callable[[], Any]]:
    return {
        "current_access": lambda: adapter.current_access(session),
        "current_identity": lambda: adapter.current_identity(session),
        "compose": lambda: adapter.compose(session),
        "call (Echo)": lambda: adapter.call(session, "Echo", {"value": "hi"}),
    }


def rate(fn: Callable[[], Any], requests: int, warm_up: int = 200) -> float:
    """Requests per second of ``fn``, after ``warm_up`` calls that warm both sides."""
    for _ in range(min(warm_up, requests)):
        fn()
    started = time.perf_counter()
    for _ in range(requests):
        fn()
    return requests / (time.perf_counter() - started)


def bench_rates(requests: int) -> dict[str, tuple[float, float]]:
    """kind -> (requests/s over the wire, requests/s in process)."""
    out: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as root:
        wire = WireHostAdapter(COMMAND, timeout=10)
        local = ReferenceHostAdapter()
        try:
            wire_kinds = _kinds(wire, _prepare(wire, root))
            local_kinds = _kinds(local, _prepare(local, root))
            for name, fn in wire_kinds.items():
                # Calls are slower (a worker thread per call in the host): fewer of them.
                n = requests if not name.startswith("call") else max(200, requests // 5)
                out[name] = (rate(fn, n), rate(local_kinds[name], n))
        finally:
            wire.close()
            local.close()
    return out


def bench_starts(starts: int) -> float:
    """Median seconds from spawning the host to a finished handshake."""
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        adapter = WireHostAdapter(COMMAND, timeout=10)
        adapter.info()
        times.append(time.perf_counter() - started)
        adapter.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    print(f"{'request':<18} {'over the wire':>16} {'in process':>14}")
    for name, (wire, local) in bench_rates(args.requests).items():
        print(f"{name:<18} {wire:>12,.0f} /s {local:>10,.0f} /s")
    print(f"host start + handshake (median of {args.starts}): {bench_starts(args.starts) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
