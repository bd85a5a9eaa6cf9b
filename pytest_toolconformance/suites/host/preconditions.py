"""Preconditions: another rule's behaviour a check needs, found broken, blocks the check instead of failing it."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest

from pytest_toolconformance.findings import Finding, shorten
from pytest_toolconformance.host.client import HostClient, reexamine_findings_with
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool


def precondition(condition: bool, rule: str, expected: str, actual: Any) -> None:
    """A check that needs another rule's behaviour and finds it broken is *blocked by* that rule
    (skipped with the reason), not failed: it counts toward neither rule."""
    if not condition:
        pytest.skip(f"blocked by {rule}: this check needs {expected}; the host did {shorten(actual)}")


T = TypeVar("T")
_PLAIN, _MCP_FALSE = "origin_probe_plain", "mcp__originprobe__false"
_PLAIN_TRUE, _MCP_TRUE = "origin_probe_external", "mcp__originprobe__true"
_PROBES = (_PLAIN, _MCP_FALSE, _PLAIN_TRUE, _MCP_TRUE)
#: Plugins whose name or manifest a host might take for the MCP bridge's: one named as the bundled
#: bridge is (``plugins/mcp``; another bridge-like name where a case already installed one so named),
#: and one whose manifest declares the ``mcp__*`` family (``provides.tools`` and ``readOnlyTools``).
#: Each registers a plainly named and an ``mcp__`` tool with the option omitted, one with ``false``
#: and one with ``true``: the option alone decides their origin (EXT-2), whoever registers them.
_BRIDGE_NAMES = ("mcp", "mcp-origin-probe")
_FAMILY = "origin-family-probe"


def _origin_probe_tools(stem: str) -> dict[str, bool | None]:
    """A probe plugin's tools, by name, with the ``external`` option each is registered with (None: omitted)."""
    return {
        f"origin_probe_{stem}_plain": None,
        f"origin_probe_{stem}_false": False,
        f"origin_probe_{stem}_external": True,
        f"mcp__originprobe{stem}__omitted": None,
        f"mcp__originprobe{stem}__false": False,
        f"mcp__originprobe{stem}__true": True,
    }


def _probe_plugin(name: str, tools: dict[str, bool | None], manifest: JSON | None = None) -> JSON:
    return plugin(
        name,
        [tool(n) if external is None else tool(n, external=external) for n, external in tools.items()],
        manifest=manifest,
    )


def _origin_probes(client: HostClient) -> list[tuple[str, dict[str, bool | None], JSON]] | None:
    """Install the probe plugins: (plugin, its tools with their options, its install report) for each that
    installed; None when the base probe did not (a second probe on one host, say)."""
    base = {_PLAIN: None, _MCP_FALSE: False, _PLAIN_TRUE: True, _MCP_TRUE: True}
    report = client.install(_probe_plugin("origin-probe", base))
    if "error" in report:
        return None
    probes = [("origin-probe", base, report)]
    bridge = _origin_probe_tools("bridge")
    for name in _BRIDGE_NAMES:
        report = client.install(_probe_plugin(name, bridge))
        if "error" not in report:
            probes.append((name, bridge, report))
            break
    family = _origin_probe_tools("family")
    declared = {"provides": {"tools": ["mcp__*", *family], "readOnlyTools": ["mcp__*"]}}
    report = client.install(_probe_plugin(_FAMILY, family, declared))
    if "error" not in report:  # a host refusing the wildcard with its entry breaks RO-2, judged there
        probes.append((_FAMILY, family, report))
    return probes


def origin_broken(client: HostClient) -> tuple[str, Any] | None:
    """Whether the host classifies origin against the registration option, and by which rule.

    Asked only once a check has failed (so a conforming run pays nothing): a probe plugin
    registers a plainly named tool with the option omitted and one with ``external: true``, and an
    ``mcp__`` tool with ``external: false`` and one with ``external: true``. EXT-1 is broken when
    the host refuses any of them (a boolean or an omitted option is never refused), reads the
    omitted option as external, or ignores ``true`` whatever the name; EXT-2 when a name decides
    (the ``mcp__`` tool with ``false`` external, or the plain one with ``true`` internal while its
    ``mcp__`` twin is external). Two more probe plugins, one named as the MCP bridge is and one
    declaring the ``mcp__*`` family in its manifest, register the same options: where the base
    probe is right, any of their tools whose origin differs from its option shows the plugin's name
    or manifest deciding origin (EXT-2), a refused one a boolean or omitted option refused (EXT-1).
    None when all are right or it cannot tell (no origin in the catalog)."""
    if not {"registration", "composition"} <= client.capabilities:
        return None
    probes = _origin_probes(client)
    if probes is None:
        return None
    names = {name for _, tools, _ in probes for name in tools}
    refused = sorted(
        {r.get("tool") for _, _, report in probes for r in report.get("refused") or [] if isinstance(r, dict)} & names
    )
    if refused:
        return "EXT-1", {"refused": refused}
    entries = {e.get("name"): e for e in client.open(identity={"userId": "user-1"}).compose().get("catalog") or []}
    origin = {name: (entries.get(name) or {}).get("origin") for name in names}
    if origin[_PLAIN] not in (None, "internal") or (origin[_PLAIN_TRUE] == origin[_MCP_TRUE] == "internal"):
        return "EXT-1", {name: origin[name] for name in (_PLAIN, _PLAIN_TRUE, _MCP_TRUE)}
    if origin[_MCP_FALSE] not in (None, "internal") or origin[_PLAIN_TRUE] == "internal":
        return "EXT-2", {name: origin[name] for name in (_MCP_FALSE, _PLAIN_TRUE)}
    wrong = {
        f"{owner}: {name}": origin[name]
        for owner, tools, _ in probes[1:]
        for name, external in tools.items()
        if origin[name] is not None and origin[name] != ("external" if external else "internal")
    }
    if wrong:
        return "EXT-2", wrong
    return None


def origin_holds(client: HostClient, rule: str) -> None:
    """After a failed check of ``rule`` that registered tools: blocked by EXT-1/EXT-2 when the host
    gets their origin wrong (an internal tool made external meets the external path everywhere).
    EXT-1 owns a wrong origin; EXT-2 is blocked only by EXT-1 (an omitted option read as true)."""
    if rule == "EXT-1":
        return
    broken = origin_broken(client)
    if broken is not None and broken[0] != rule:
        pytest.skip(
            f"blocked by {broken[0]}: this {rule} check registers tools whose origin the host gets wrong "
            f"(probe catalog origin {shorten(broken[1])})"
        )


_EITHER = {
    "anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["b"]},
    ]
}
_NESTED = {"type": "object", "properties": {"mode": {"anyOf": [{"const": "fast"}, {"type": "number"}]}}}


def schema_admission_holds(client: HostClient, rule: str) -> None:
    """After a failed check of ``rule``: blocked by SCHEMA-1 when the host refuses a schema SCHEMA-1
    admits (an external tool's root combinator is its owner's; unions inside properties are flat)
    while it accepts a flat twin of the same origin, since the check's generated tools have such
    schemas and never registered. Asked only after a failure; SCHEMA-1's and EXT-1's own checks are
    never re-examined (a host refusing the twin too gets origin wrong: EXT-1's probe says so)."""
    if rule in ("SCHEMA-1", "EXT-1") or "registration" not in client.capabilities:
        return
    flat = {"type": "object", "properties": {"a": {"type": "string"}}}
    probes = [
        tool("mcp__schemaprobe__either", parameters=_EITHER, external=True),
        tool("mcp__schemaprobe__flat", parameters=flat, external=True),
        tool("schema_probe_nested", parameters=_NESTED),
        tool("schema_probe_flat", parameters=flat),
    ]
    report = client.install(plugin("schema-probe", probes))
    if "error" in report:
        return
    accepted = set(report.get("accepted") or [])
    refused = [
        name
        for name, twin in (
            ("mcp__schemaprobe__either", "mcp__schemaprobe__flat"),
            ("schema_probe_nested", "schema_probe_flat"),
        )
        if name not in accepted and twin in accepted
    ]
    if refused:
        pytest.skip(
            f"blocked by SCHEMA-1: this {rule} check registers tools whose schemas SCHEMA-1 admits, and the "
            f"host refuses such schemas while it registers their flat twins (refused: {shorten(refused)})"
        )


_WILDCARD = "mcp__*"
_WILDCARD_ROUNDS = itertools.count()


def wildcard_admission_holds(client: HostClient, rule: str) -> None:
    """After a failed check of ``rule``: blocked by RO-2 when the host refuses ``readOnlyTools: ['mcp__*']``
    with its ``provides.tools`` entry (all RO-2 asks for), for a plugin of internal tools only or one with an
    external tool, while it installs the same plugin without the wildcard: the generated checks' plugins
    declare the wildcard so. Asked only after a failure; RO-2's own checks are never re-examined."""
    if rule == "RO-2" or "registration" not in client.capabilities:
        return
    refused = []
    # A failing check may be re-examined more than once on one host (a property's later examples): each
    # round's plugins get names of their own, or the host's refusal of a name installed twice would read
    # as a refusal of the wildcard.
    round_ = next(_WILDCARD_ROUNDS)
    for stem, tools in (
        ("wildcard-probe-internal", [tool("wildcard_probe_status")]),
        ("wildcard-probe-external", [tool("wildcard_probe_local"), tool("mcp__wildcardprobe__get", external=True)]),
    ):
        name = stem if round_ == 0 else f"{stem}-{round_}"
        names = [t["name"] for t in tools]
        declared = {"provides": {"tools": [_WILDCARD, *names], "readOnlyTools": [_WILDCARD]}}
        if "error" not in client.install(plugin(name, tools, manifest=declared)):
            continue
        twin = [{**t, "name": f"{t['name']}_twin", "label": f"{t['name']}_twin"} for t in tools]
        undeclared = {"provides": {"tools": [_WILDCARD, *(t["name"] for t in twin)]}}
        if "error" not in client.install(plugin(f"{name}-twin", twin, manifest=undeclared)):
            refused.append(name)
    if refused:
        pytest.skip(
            f"blocked by RO-2: this {rule} check installs plugins declaring readOnlyTools ['{_WILDCARD}'] with "
            f"its provides.tools entry, and the host refuses such a manifest while it installs the same plugin "
            f"without the wildcard (refused: {shorten(refused)})"
        )


def registrations_hold(client: HostClient, rule: str) -> None:
    """After a failed check of ``rule`` that registered tools: blocked by the rule the host breaks in
    registering them (origin: EXT-1/EXT-2; an admissible schema refused: SCHEMA-1; the wildcard with its
    entry refused: RO-2), if any."""
    origin_holds(client, rule)
    schema_admission_holds(client, rule)
    wildcard_admission_holds(client, rule)


# Every host finding, not only those of the checks below that ask: a generated check of any family
# registers tools, and a host that refuses a boolean option or reads it wrong fails it for EXT-1's
# fault, one that refuses an admissible schema for SCHEMA-1's.
reexamine_findings_with(origin_holds)
reexamine_findings_with(schema_admission_holds)
reexamine_findings_with(wildcard_admission_holds)


@contextmanager
def origin_precondition(client: HostClient) -> Iterator[None]:
    """Around a check body: a finding is re-examined by :func:`origin_holds` before it stands."""
    try:
        yield
    except Finding as finding:
        origin_holds(client, finding.rule)
        raise


def origin_checked(client: HostClient, body: Callable[[T], None]) -> Callable[[T], None]:
    """``body`` (a property's, over internal tools) with its findings re-examined by :func:`origin_holds`."""

    def checked(example: T) -> None:
        with origin_precondition(client):
            body(example)

    return checked
