"""Requests per second over the wire protocol against pi's real runtime (``hosts/pi/host``).

One kit-side :class:`~pytest_toolconformance.host.wire.client.WireHostAdapter` drives the pi adapter,
one request at a time, every answer validated against its schema as in a real run. ``compose`` is a
real pi turn (a faux model request) plus pi-ai's OpenAI request body; ``call`` is a faux tool call
through ``session.prompt()`` plus pi-ai's Anthropic request body for the model's view of the result.
Also the median host start (the handshake, then pi's import in the first reset) and an install of a one-tool plugin.
Needs ``hosts/pi/setup``.

    python benchmarks/bench_pi_wire.py [--requests N] [--starts N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_toolconformance.host.wire.client import WireHostAdapter  # noqa: E402

COMMAND = [str(ROOT / "hosts" / "pi" / "host")]
# One plugin and one way of timing for both wire benchmarks.
from bench_wire import PLUGIN, rate  # noqa: E402


def bench(requests: int, starts: int) -> dict[str, float]:
    out: dict[str, float] = {}
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        adapter = WireHostAdapter(COMMAND, timeout=30)
        adapter.info()
        adapter.reset()  # the first reset waits for pi's import
        times.append(time.perf_counter() - started)
        adapter.close()
    out["start, handshake, first reset, median (ms)"] = statistics.median(times) * 1000
    adapter = WireHostAdapter(COMMAND, timeout=30)
    try:
        adapter.info()

        def install() -> None:
            adapter.reset()
            adapter.install_plugin(PLUGIN)

        out["reset + install_plugin (/s)"] = rate(install, max(20, requests // 10), warm_up=50)
        adapter.reset()
        adapter.install_plugin(PLUGIN)
        session = adapter.open_session({"identity": {"userId": "u1"}})["session"]
        out["compose (/s)"] = rate(lambda: adapter.compose(session), requests, warm_up=50)
        # Every call is a turn of the same session, so its transcript grows: a fresh session per batch.
        adapter.reset()
        adapter.install_plugin(PLUGIN)
        session = adapter.open_session({"identity": {"userId": "u1"}})["session"]
        out["call Echo (/s)"] = rate(lambda: adapter.call(session, "Echo", {"value": "hi"}), requests, warm_up=50)
    finally:
        adapter.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    if not (ROOT / "hosts" / "pi" / "node_modules").is_dir():
        sys.exit("bench_pi_wire: pi is not installed; run hosts/pi/setup first")
    for name, value in bench(args.requests, args.starts).items():
        print(f"{name:40} {value:10.1f}")


if __name__ == "__main__":
    main()
