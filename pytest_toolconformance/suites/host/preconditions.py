"""Preconditions: another rule's behaviour a check needs, found broken, blocks the check instead of failing it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest

from pytest_toolconformance.findings import Finding, shorten
from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.scripted import plugin, tool


def precondition(condition: bool, rule: str, expected: str, actual: Any) -> None:
    """A check that needs another rule's behaviour and finds it broken is *blocked by* that rule
    (skipped with the reason), not failed: it counts toward neither rule."""
    if not condition:
        pytest.skip(f"blocked by {rule}: this check needs {expected}; the host did {shorten(actual)}")


T = TypeVar("T")
_PLAIN, _MCP_FALSE = "origin_probe_plain", "mcp__originprobe__false"


def origin_broken(client: HostClient) -> tuple[str, Any] | None:
    """Whether the host classifies origin against the registration option, and by which rule.

    Asked only once a check has failed (so a conforming run pays nothing): a probe plugin
    registers a plainly named tool with the option omitted (EXT-1: omitted means false) and an
    ``mcp__`` tool with ``external: false`` (EXT-2: a name never implies origin); the catalog's
    ``origin`` says which the host got wrong. None when both are internal or it cannot tell."""
    if not {"registration", "composition"} <= client.capabilities:
        return None
    report = client.install(plugin("origin-probe", [tool(_PLAIN), tool(_MCP_FALSE, external=False)]))
    if "error" in report:
        return None
    entries = {e.get("name"): e for e in client.open(identity={"userId": "user-1"}).compose().get("catalog") or []}
    for name, rule in ((_PLAIN, "EXT-1"), (_MCP_FALSE, "EXT-2")):
        origin = (entries.get(name) or {}).get("origin")
        if origin is not None and origin != "internal":
            return rule, {name: origin}
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
