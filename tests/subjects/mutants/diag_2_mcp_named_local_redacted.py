"""Breaks DIAG-2: the diagnostics projection redacts local tools by their ``mcp__`` name.

Cell: a local (internal, ``external: false``) tool named ``mcp__...`` in a host with no external
registrations. The broken host's cache-diagnostics projection decides what is external by the MCP
bridge's naming convention instead of the registered origin, so an internal ``mcp__`` tool's name
and its plugin's namespace are redacted although nothing external is registered. The catalog, the
model tool list and the payload are the reference host's (origin there stays internal).
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import REDACTED_NAMESPACE, REDACTED_TOOL, Composition
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DIAG-2"


def _looks_external(reg: Registration) -> bool:
    return reg.external or reg.name.startswith("mcp__")


def _namespace(reg: Registration) -> str:
    return CORE_PLUGIN if reg.plugin == CORE_PLUGIN else f"plugin:{reg.plugin}"


class PrefixRedactingSession(Session):
    def compose(self) -> Composition:
        composition = super().compose()
        registry = self.host.registry
        external_namespaces = {_namespace(r) for r in registry if _looks_external(r)}
        tools: list[dict[str, Any]] = []
        redacted_tools = 0
        redacted_namespaces: set[str] = set()
        for entry in composition.catalog:
            reg = registry.get(entry["name"])
            if reg is None:
                continue
            ns = _namespace(reg)
            redacted = ns in external_namespaces
            if redacted:
                redacted_namespaces.add(ns)
            hide = _looks_external(reg)
            redacted_tools += hide
            tools.append(
                {
                    "name": REDACTED_TOOL if hide else reg.name,
                    "namespace": REDACTED_NAMESPACE if redacted else ns,
                    "loaded": not entry["deferred"],
                }
            )
        composition.diagnostics = {
            "tools": tools,
            "redacted": {"tools": redacted_tools, "namespaces": len(redacted_namespaces)},
        }
        return composition


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PrefixRedactingSession)
