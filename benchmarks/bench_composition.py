"""Session composition cost of the reference host (COST-1), from 1k to 100k tools.

Builds catalogs directly with ``reference_host``: a fifth of the tools are external, using the
real MCP shapes in ../shared/data/mcp-tools when they are there (else synthetic ones), the rest
internal flat schemas. For each size it prints the time per tool of a session's first
composition (each registration's advertised entries are built then) and of later ones (best of
several, measured in rounds that interleave the sizes), and the ratio of composition time to one
``json.dumps`` of the provider payload it produced.

Targets: per-tool time flat within 1.5x from 1k to 100k; composition within 2x of the dump. The
verdict uses the ``flushed`` figures (see :func:`measure`); the ``hot`` ones are printed too.

    python benchmarks/bench_composition.py [--sizes 1000,10000,100000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reference_host import Host, define_tool, text_result  # noqa: E402

SHARED_TOOLS = ROOT.parent / "shared" / "data" / "mcp-tools"
TOOLS_PER_PLUGIN = 1000


def _execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return text_result("ok")


def real_shapes() -> list[tuple[str, dict[str, Any]]]:
    """(description, inputSchema) of every real MCP tool, or [] where the data is absent."""
    shapes = []
    for path in sorted(SHARED_TOOLS.glob("*.json")):
        for tool in json.loads(path.read_text("utf-8")).get("tools", []):
            shapes.append((tool.get("description") or tool["name"], tool.get("inputSchema") or {"type": "object"}))
    return shapes


def synthetic_shapes() -> list[tuple[str, dict[str, Any]]]:
    shapes = []
    for i in range(64):
        properties = {
            f"field_{j}": {"type": ("string", "integer", "boolean")[j % 3], "description": f"Field {j} of shape {i}."}
            for j in range(2 + i % 9)
        }
        description = f"Synthetic external tool {i}: " + "does a remote thing. " * (1 + i % 40)
        shapes.append((description, {"type": "object", "properties": properties, "required": ["field_0"]}))
    return shapes


def internal_schema(i: int) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "file_path": {"type": "string", "description": "Absolute guest path of the file."},
        "limit": {"type": "integer", "minimum": 1},
    }
    if i % 3 == 0:
        properties["mode"] = {"anyOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "full"}]}
    if i % 5 == 0:
        properties["tags"] = {"type": "array", "items": {"type": "string"}}
    return {"type": "object", "required": ["file_path"], "properties": properties}


class _Plugin:
    def __init__(self, name: str, tools: list[tuple[str, str, dict[str, Any], bool]]) -> None:
        self.__name__ = name
        self.tools = tools

    def register(self, ctx: Any) -> None:
        for name, description, parameters, external in self.tools:
            tool = define_tool(name=name, label=name, description=description, parameters=parameters, execute=_execute)
            ctx.register_tool(tool, external=external)


def build_host(size: int, shapes: list[tuple[str, dict[str, Any]]]) -> Host:
    host = Host()
    tools: list[tuple[str, str, dict[str, Any], bool]] = []
    for i in range(size):
        if i % 5 == 0:
            description, schema = shapes[(i // 5) % len(shapes)]
            tools.append((f"mcp__srv{i // 5 % 97}__tool{i}", description, schema, True))
        else:
            tools.append(
                (f"tool_{i}", f"Internal tool number {i}: reads a file and reports on it.", internal_schema(i), False)
            )
    for start in range(0, size, TOOLS_PER_PLUGIN):
        chunk = tools[start : start + TOOLS_PER_PLUGIN]
        host.install_plugin(_Plugin(f"plugin{start // TOOLS_PER_PLUGIN}", chunk), manifest=None)
    return host


_FLUSH = bytearray(64 * 1024 * 1024)


def flush_caches() -> None:
    """Read 64 MB, so that what a composition touches is out of the CPU caches, as it is in a real
    turn (a model call and other work happen between two compositions)."""
    _FLUSH.count(1)


def timed(fn: Any, *, flush: bool = False) -> tuple[float, Any]:
    if flush:
        flush_caches()
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def measure(sizes: list[int], shapes: list[tuple[str, dict[str, Any]]], repeat: int) -> list[dict[str, float]]:
    """Build every catalog first, then time them in interleaved rounds (best of ``repeat``), so
    that a busy moment on the machine does not land on one size only.

    ``hot`` is back-to-back compositions (the catalog in the CPU caches: a 1k catalog fits there,
    a 100k one cannot); ``flushed`` empties the caches before each run, which is a real turn's
    condition and the fair per-tool comparison across sizes.
    """
    hosts = [build_host(size, shapes) for size in sizes]
    sessions = [host.open_session({"identity": {"userId": "bench"}}) for host in hosts]
    # The collector would walk every object of every catalog in the middle of a timing.
    gc.collect()
    gc.disable()
    colds, payloads = [], []
    for session in sessions:
        cold, composition = timed(session.compose, flush=True)
        colds.append(cold)
        payloads.append(composition.payload)
    inf = float("inf")
    hot, flushed, dump = [inf] * len(sizes), [inf] * len(sizes), [inf] * len(sizes)
    for _ in range(repeat):
        for i, session in enumerate(sessions):
            flushed[i] = min(flushed[i], timed(session.compose, flush=True)[0])
            session.compose()
            hot[i] = min(hot[i], timed(session.compose)[0])
            payload = payloads[i]
            dump[i] = min(dump[i], timed(lambda payload=payload: json.dumps(payload))[0])
    rows = []
    for i, size in enumerate(sizes):
        catalog = len(hosts[i].registry)
        rows.append(
            {
                "size": size,
                "catalog": catalog,
                "first_us": colds[i] / catalog * 1e6,
                "flushed_us": flushed[i] / catalog * 1e6,
                "hot_us": hot[i] / catalog * 1e6,
                "dump_us": dump[i] / catalog * 1e6,
                "ratio": flushed[i] / dump[i],
                "payload_mb": len(json.dumps(payloads[i])) / 1e6,
            }
        )
        hosts[i].close()
    gc.enable()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    shapes = real_shapes()
    source = f"{len(shapes)} real MCP shapes from {SHARED_TOOLS}" if shapes else "synthetic shapes (no shared data)"
    shapes = shapes or synthetic_shapes()
    print(f"external tools: a fifth of each catalog, {source}")
    print(
        "us/tool: first = a session's first composition (builds the advertised entries); flushed = a later one "
        "with the CPU caches emptied first (a real turn); hot = back to back; dump = one json.dumps of the payload"
    )
    print(
        f"{'tools':>8} {'catalog':>8} {'first':>9} {'flushed':>9} {'hot':>9} {'dump':>9} "
        f"{'flushed/dump':>13} {'payload MB':>11}"
    )
    rows = measure([int(size) for size in args.sizes.split(",")], shapes, args.repeat)
    for row in rows:
        print(
            f"{row['size']:>8} {row['catalog']:>8} {row['first_us']:>9.2f} {row['flushed_us']:>9.2f} "
            f"{row['hot_us']:>9.2f} {row['dump_us']:>9.2f} {row['ratio']:>13.2f} {row['payload_mb']:>11.1f}"
        )
    flushed = [r["flushed_us"] for r in rows]
    hot = [r["hot_us"] for r in rows]
    # "Does per-tool time grow with the catalog": each size against the smallest one.
    growth = max(f / flushed[0] for f in flushed)
    hot_growth = max(h / hot[0] for h in hot)
    worst = max(r["ratio"] for r in rows)
    print(
        f"per-tool growth {rows[0]['size']}..{rows[-1]['size']}: flushed {growth:.2f}x (target <= 1.5x), "
        f"hot {hot_growth:.2f}x (sub-microsecond, so CPU-cache bound: a 1k catalog fits in L2); "
        f"worst composition/dump: {worst:.2f}x (target <= 2x)"
    )
    return 0 if growth <= 1.5 and worst <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
