"""COST-1: session composition is linear in the tool catalog (plus the external schemas inspected).

The one timing check of the kit. It composes a catalog of N tools and one of 10N (a fifth of each
external) and compares the time *per tool*: a linear host stays near 1x even on a noisy machine,
a host that rescans the catalog for every tool grows about 10x. It fails only past 4x, so that a
busy CI machine does not make it flaky, and it takes the best of several runs of each. A growth
past 4x is measured again (CONFIRMATIONS more time) and reported only if every measurement
shows it: a burst of load on the machine lands on one measurement, a quadratic host on all of them.
In a plugin run against the kit's own reference host it does not run at all: a plugin author can
fix nothing about the reference host's timing.

A host in the kit's own process is timed by the CPU time the process spends (``process_time``),
not by the wall clock: on a loaded machine a long composition is preempted many times and a short
one hardly ever, which would make a linear host look superlinear. A wire host works in another
process, so it is timed by the wall clock. Either clock is read through a stopwatch
(stopwatch.py) that counts a timing only when it spans enough of the clock's steps: a process clock
that moves in scheduler ticks would read 0 for a small catalog, and no growth would be seen.

Both a session's first composition after the plugins are installed (where a host may work out
each tool's caps) and later ones are measured: quadratic work hidden in either is caught.

The external schemas inspected count too: one external tool whose schema has SCHEMA_PROPERTIES and
then FACTOR times as many properties is composed, and the time per property compared the same way (a
host that serializes the definition again for every property it inspects grows about 10x).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolconformance import options as kit_settings
from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.suites.host.stopwatch import Stopwatch

SMALL = 300
FACTOR = 10
#: Per-tool time may grow this much from SMALL to FACTOR * SMALL tools before it is a failure.
LIMIT = 4.0
ROUNDS = 5
#: Later compositions per round and size: the best of ROUNDS x LATER_RUNS is taken (25 timings hold the
#: noise of a busy machine; a host that rescans the catalog pays its large catalog every time).
LATER_RUNS = 5
#: How many more times a growth past LIMIT is measured before it is reported.
CONFIRMATIONS = 1
TOOLS_PER_PLUGIN = 100
#: Properties of the one external tool's schema in the small measurement (FACTOR times as many in the large).
SCHEMA_PROPERTIES = 100
#: Rounds and later compositions of the schema measurement: one tool's composition is timed, a host
#: quadratic in its schema pays seconds for each, and fewer timings still hold a linear host's noise.
SCHEMA_ROUNDS = 3
SCHEMA_LATER_RUNS = 2

_EXTERNAL_SCHEMA = {
    "type": "object",
    "required": ["query"],
    "properties": {
        "query": {"type": "string", "description": "Search terms; quoted phrases match exactly."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many results to return."},
        "filters": {"type": "object", "properties": {"lang": {"type": "string"}, "since": {"type": "string"}}},
        "sort": {"type": "string", "enum": ["relevance", "date", "stars"]},
    },
}
_INTERNAL_SCHEMA = {
    "type": "object",
    "required": ["file_path"],
    "properties": {
        "file_path": {"type": "string", "description": "Absolute guest path of the file."},
        "limit": {"type": "integer"},
    },
}


def catalog(size: int) -> list[dict[str, Any]]:
    """Scripted plugins holding ``size`` tools, every fifth one external."""
    plugins = []
    for start in range(0, size, TOOLS_PER_PLUGIN):
        tools = []
        for i in range(start, min(size, start + TOOLS_PER_PLUGIN)):
            if i % 5 == 0:
                tools.append(
                    {
                        "name": f"mcp__srv{i // TOOLS_PER_PLUGIN}__search{i}",
                        "label": "search",
                        "description": f"Search remote source {i} for documents matching a query. " * 3,
                        "parameters": _EXTERNAL_SCHEMA,
                        "handler": [],
                        "options": {"external": True},
                    }
                )
            else:
                tools.append(
                    {
                        "name": f"local_tool_{i}",
                        "label": "local",
                        "description": f"Local tool {i}.",
                        "parameters": _INTERNAL_SCHEMA,
                        "handler": [],
                    }
                )
        plugins.append({"name": f"cost-{start // TOOLS_PER_PLUGIN}", "tools": tools})
    return plugins


def stopwatch_for(client: HostClient) -> Stopwatch:
    """The CPU time of this process for an in-process host; the wall clock for a host process."""
    from pytest_toolconformance.host.wire.client import WireHostAdapter

    return Stopwatch(time.perf_counter if isinstance(client.adapter, WireHostAdapter) else time.process_time)


def _install(client: HostClient, plugins: list[dict[str, Any]], size: int) -> None:
    client.reset()
    for doc in plugins:
        report = client.install(doc)
        check(
            "error" not in report and len(report.get("accepted") or []) == len(doc["tools"]),
            f"the {size}-tool catalog installs",
            report,
        )


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's garbage collector while compositions are timed: a collection of the whole test
    process is not the host's composition time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def measure(
    client: HostClient, sizes: tuple[int, ...], watch: Stopwatch | None = None
) -> dict[int, tuple[float, float]]:
    """Per size, (first, later): the best seconds per tool of a session's first composition after
    the install, and of later compositions, on ``watch`` (the client's own by default). Sizes are
    measured in interleaved rounds, so that a busy moment of the machine does not land on one size only."""
    catalogs = {size: catalog(size) for size in sizes}
    watch = watch or stopwatch_for(client)
    firsts: dict[int, list[float]] = {size: [] for size in sizes}
    later = dict.fromkeys(sizes, float("inf"))
    batch = dict.fromkeys(sizes, 1)
    totals: dict[int, int] = {}

    def installed(size: int) -> Any:
        _install(client, catalogs[size], size)
        return client.open(identity={"userId": "cost"})

    with _collector_paused():
        for _ in range(ROUNDS):
            for size in sizes:
                session = installed(size)
                composed: dict[str, Any] = {}
                firsts[size].append(watch.reading(lambda s=session, c=composed: c.update(s.compose())))
                totals[size] = len(composed.get("catalog") or [])
                check(totals[size] >= size, f"the session's catalog holds the {size} tools", totals[size])
                for _ in range(LATER_RUNS):
                    seconds, batch[size] = watch.repeatable(session.compose, batch[size])
                    later[size] = min(later[size], seconds)
        first = {size: watch.once_each(lambda z=size: installed(z).compose, firsts[size]) for size in sizes}
    return {size: (first[size] / totals[size], later[size] / totals[size]) for size in sizes}


def growths(measured: dict[int, tuple[float, float]]) -> dict[str, float]:
    """Per composition kind ("first", "later"), how much the time per tool grew from SMALL to the large catalog."""
    small, large = measured[SMALL], measured[SMALL * FACTOR]
    return {which: big / s for which, s, big in (("first", small[0], large[0]), ("later", small[1], large[1]))}


def confirmed_growth(
    client: HostClient, watch: Stopwatch
) -> tuple[dict[str, float], list[dict[int, tuple[float, float]]]]:
    """The smallest growth per kind over a first measurement and, while any kind exceeds LIMIT, up to
    CONFIRMATIONS more: a failure must be there every time it is looked at."""
    attempts = [measure(client, (SMALL, SMALL * FACTOR), watch)]
    best = growths(attempts[0])
    while any(g > LIMIT for g in best.values()) and len(attempts) <= CONFIRMATIONS:
        attempts.append(measure(client, (SMALL, SMALL * FACTOR), watch))
        best = {which: min(best[which], g) for which, g in growths(attempts[-1]).items()}
    return best, attempts


def _skip_in_a_plugin_run() -> None:
    current = kit_settings.active()
    if current.plugins and current.host == kit_settings.DEFAULT_HOST:
        pytest.skip("COST-1 times the host, here the kit's reference host: a plugin run never fails on it")


@pytest.mark.toolconformance("COST-1")
def test_composition_time_per_tool_does_not_grow_with_the_catalog(toolconformance_host: HostClient) -> None:
    _skip_in_a_plugin_run()
    client = toolconformance_host
    client.require("registration", "composition")
    watch = stopwatch_for(client)
    best, attempts = confirmed_growth(client, watch)
    client.reset()
    for which, index in (("first", 0), ("later", 1)):
        growth = best[which]
        check(
            growth <= LIMIT,
            f"the {which} composition's time per tool stays within {LIMIT:g}x from {SMALL} to {SMALL * FACTOR} tools "
            "(linear: about 1x; rescanning the catalog per tool: about 10x), in each of "
            f"{len(attempts)} measurements",
            {
                "growth": round(growth, 2),
                "clock_step_us": round(watch.step * 1e6, 3),
                "measurements": [
                    {
                        f"us_per_tool_at_{SMALL}": round(m[SMALL][index] * 1e6, 2),
                        f"us_per_tool_at_{SMALL * FACTOR}": round(m[SMALL * FACTOR][index] * 1e6, 2),
                    }
                    for m in attempts
                ],
            },
            {
                "catalogs": f"{SMALL} and {SMALL * FACTOR} tools in plugins of {TOOLS_PER_PLUGIN}, every fifth "
                f"external; "
                "best of several compositions each"
            },
        )


def wide_external(properties: int) -> dict[str, Any]:
    """A scripted plugin with one external tool whose schema has ``properties`` string properties."""
    schema = {
        "type": "object",
        "properties": {
            f"filter_{i:05d}": {"type": "string", "description": f"Filter number {i} of the remote search."}
            for i in range(properties)
        },
    }
    tool = {
        "name": "mcp__wide__search",
        "label": "search",
        "description": "Search a remote source.",
        "parameters": schema,
        "handler": [],
        "options": {"external": True},
    }
    return {"name": "cost-wide", "tools": [tool]}


def measure_schema_sizes(
    client: HostClient, sizes: tuple[int, ...], watch: Stopwatch | None = None
) -> dict[int, tuple[float, float]]:
    """Per property count, (first, later): the best seconds per property of a session's first
    composition after the install, and of later ones, in interleaved rounds as :func:`measure`."""
    plugins = {size: wide_external(size) for size in sizes}
    watch = watch or stopwatch_for(client)
    firsts: dict[int, list[float]] = {size: [] for size in sizes}
    later = dict.fromkeys(sizes, float("inf"))
    batch = dict.fromkeys(sizes, 1)

    def installed(size: int) -> Any:
        client.reset()
        report = client.install(plugins[size])
        check(
            "error" not in report and report.get("accepted") == ["mcp__wide__search"],
            f"the external tool with {size} properties installs",
            report,
        )
        return client.open(identity={"userId": "cost"})

    with _collector_paused():
        for _ in range(SCHEMA_ROUNDS):
            for size in sizes:
                session = installed(size)
                firsts[size].append(watch.reading(session.compose))
                for _ in range(SCHEMA_LATER_RUNS):
                    seconds, batch[size] = watch.repeatable(session.compose, batch[size])
                    later[size] = min(later[size], seconds)
        first = {size: watch.once_each(lambda z=size: installed(z).compose, firsts[size]) for size in sizes}
    return {size: (first[size] / size, later[size] / size) for size in sizes}


@pytest.mark.toolconformance("COST-1")
def test_composition_time_per_property_does_not_grow_with_the_external_schema(
    toolconformance_host: HostClient,
) -> None:
    _skip_in_a_plugin_run()
    client = toolconformance_host
    client.require("registration", "composition")
    sizes = (SCHEMA_PROPERTIES, SCHEMA_PROPERTIES * FACTOR)
    watch = stopwatch_for(client)
    attempts = [measure_schema_sizes(client, sizes, watch)]

    def growth(which: int) -> float:
        # The smallest growth over every measurement: a failure must be there each time it is looked at.
        return min(m[sizes[1]][which] / m[sizes[0]][which] for m in attempts)

    while any(growth(i) > LIMIT for i in (0, 1)) and len(attempts) <= CONFIRMATIONS:
        attempts.append(measure_schema_sizes(client, sizes, watch))
    client.reset()
    for which, index in (("first", 0), ("later", 1)):
        check(
            growth(index) <= LIMIT,
            f"the {which} composition's time per schema property stays within {LIMIT:g}x from {sizes[0]} to "
            f"{sizes[1]} properties of one external tool (linear in the external schemas inspected: about 1x; "
            f"serializing the definition again per property: about {FACTOR}x), in each of {len(attempts)} "
            "measurements",
            {
                "growth": round(growth(index), 2),
                "clock_step_us": round(watch.step * 1e6, 3),
                "measurements": [
                    {f"us_per_property_at_{size}": round(m[size][index] * 1e6, 3) for size in sizes} for m in attempts
                ],
            },
            {
                "catalog": f"one external tool with {sizes[0]}, then {sizes[1]} string properties; best of several "
                "compositions each"
            },
        )
