"""Requests per second against each real host in hosts/: pi 1.6 and pi 0.73 over the wire, aelix in process.

For a pi line, one kit-side :class:`~pytest_toolconformance.host.wire.client.WireHostAdapter` drives its
adapter, one request at a time, every answer validated against its schema as in a real run: ``compose``
is a real pi turn (a faux model request) plus pi-ai's OpenAI request body; ``call`` is a faux tool call
through ``session.prompt()`` plus pi-ai's Anthropic request body for the model's view of the result.
For aelix, its in-process adapter (hosts/aelix/adapter.py) does the same through aelix's harness; run it
with the interpreter hosts/aelix/setup made. Also the median host start (for pi: the handshake, then
pi's import in the first reset) and an install of a one-tool plugin. Needs the host's ``setup``.

    python benchmarks/bench_real_hosts.py --host pi|pi-0.73 [--requests N] [--starts N]
    hosts/aelix/.venv/bin/python benchmarks/bench_real_hosts.py --host aelix
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_toolconformance.host.wire.client import WireHostAdapter  # noqa: E402

HOSTS = ("pi", "pi-0.73", "aelix")
# One plugin and one way of timing for both wire benchmarks.
from bench_wire import PLUGIN, rate  # noqa: E402


def start(host: str) -> Any:
    """The host's adapter: a pi line's wire host, or aelix's in-process adapter."""
    if host == "aelix":
        from pytest_toolconformance.host.connect import load_host

        return load_host("hosts.aelix.adapter:factory", search_paths=[ROOT], timeout=10)
    return WireHostAdapter([str(ROOT / "hosts" / host / "host")], timeout=30)


def bench(host: str, requests: int, starts: int) -> dict[str, float]:
    out: dict[str, float] = {}
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        adapter = start(host)
        adapter.info()
        adapter.reset()  # for pi, the first reset waits for pi's import
        times.append(time.perf_counter() - started)
        adapter.close()
    out["start, handshake, first reset, median (ms)"] = statistics.median(times) * 1000
    adapter = start(host)
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
    parser.add_argument("--host", choices=HOSTS, default="pi")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    installed = ROOT / "hosts" / args.host / ("node_modules" if args.host != "aelix" else ".venv")
    if not installed.is_dir():
        sys.exit(f"bench_real_hosts: {args.host} is not installed; run hosts/{args.host}/setup first")
    if args.host == "aelix" and importlib.util.find_spec("aelix_coding_agent") is None:
        sys.exit("bench_real_hosts: aelix runs in process: run this with hosts/aelix/.venv/bin/python")
    for name, value in bench(args.host, args.requests, args.starts).items():
        print(f"{name:40} {value:10.1f}")


if __name__ == "__main__":
    main()
