"""RO-1 broken: readOnlyTools ['mcp__*'] is read as a name pattern: it classifies every mcp__-named tool,
internal ones and other plugins' ones included."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-1"


def classify_by_name(host: Host, report: Any) -> None:
    registry = host.registry
    if any((m := registry.manifest(p)) is not None and m.external_read_only for p in registry.plugins()):
        rewrite_registry(host, lambda reg: replace(reg, read_only=True) if reg.name.startswith("mcp__") else None)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(classify_by_name)
