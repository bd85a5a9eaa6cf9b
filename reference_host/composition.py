"""Session composition: catalog, model tool list, provider payload and cache diagnostics.

One pass over the registry, with constant work per tool plus one serialization of each external
definition it advertises (COST-1); nothing here rescans the catalog per tool.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .registry import CORE_PLUGIN, Registration
from .schemas import REASON_EXCLUDED, capped_external_definition, with_reason

REDACTED_TOOL = "<external-tool>"
REDACTED_NAMESPACE = "<external-namespace>"
PLAN_DIRECTIVE = (
    "Plan mode: investigate and write the plan. Only read-only tools run; the plan file is the one "
    "file you may write."
)


@dataclass(frozen=True)
class SessionView:
    """What composition needs to know about a session."""

    account: str
    project_id: str | None
    platform: str | None
    deferral_enabled: bool
    admin_overrides: frozenset[str]
    loaded: frozenset[str]
    read_only_child: bool
    mode_directive: str | None


@dataclass
class Composition:
    catalog: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    payload: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)
    mode_directive: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "catalog": self.catalog,
            "tools": self.tools,
            "payload": self.payload,
            "diagnostics": self.diagnostics,
            "modeDirective": self.mode_directive,
        }


def in_scope(reg: Registration, view: SessionView) -> bool:
    """SCOPE-1/2: whether a scoped contribution belongs to this session at all."""
    return (
        (reg.owner_user_id is None or reg.owner_user_id == view.account)
        and (reg.project_id is None or reg.project_id == view.project_id)
        and (reg.platform is None or reg.platform == view.platform)
    )


def is_deferred(reg: Registration, view: SessionView) -> bool:
    """MANIFEST-2: deferLoading defers unless switched off, overridden, or already loaded."""
    return (
        reg.deferred
        and view.deferral_enabled
        and reg.name not in view.admin_overrides
        and reg.name not in view.loaded
    )


def advertised_definition(reg: Registration) -> dict[str, Any]:
    """The tool as the model sees it: caps for external tools, ``reason`` for internal ones."""
    tool = reg.tool
    if reg.external:
        description, parameters, _ = capped_external_definition(tool.name, tool.description, tool.parameters)
        return {"name": tool.name, "description": description, "parameters": parameters}
    parameters = tool.parameters if tool.name in REASON_EXCLUDED else with_reason(tool.parameters)
    return {"name": tool.name, "description": tool.description, "parameters": parameters}


def _namespace(reg: Registration) -> str:
    return CORE_PLUGIN if reg.plugin == CORE_PLUGIN else f"plugin:{reg.plugin}"


def compose_session(registrations: Iterable[Registration], view: SessionView) -> Composition:
    """Compose what a session offers the model (CAP, REASON, SCOPE, MANIFEST-2, DIAG)."""
    composition = Composition(mode_directive=view.mode_directive)
    external_namespaces: set[str] = set()
    visible: list[tuple[Registration, dict[str, Any] | None]] = []
    for reg in registrations:
        if not in_scope(reg, view):
            continue
        if view.read_only_child and not reg.read_only:
            continue
        deferred = is_deferred(reg, view)
        composition.catalog.append({"name": reg.name, "deferred": deferred})
        definition = None if deferred else advertised_definition(reg)
        if definition is not None:
            composition.tools.append(definition)
        if reg.external:
            external_namespaces.add(_namespace(reg))
        visible.append((reg, definition))
    payload: dict[str, Any] = {
        "tools": [
            {"type": "function", "name": d["name"], "description": d["description"], "parameters": d["parameters"]}
            for d in composition.tools
        ]
    }
    if view.mode_directive:
        payload["instructions"] = view.mode_directive
    composition.payload = payload
    composition.diagnostics = _diagnostics(visible, external_namespaces)
    return composition


def _diagnostics(
    visible: list[tuple[Registration, dict[str, Any] | None]], external_namespaces: set[str]
) -> dict[str, Any]:
    """DIAG-1/2: the cache-diagnostics projection, with external names and namespaces redacted."""
    tools = []
    for reg, definition in visible:
        namespace = _namespace(reg)
        tools.append(
            {
                "name": REDACTED_TOOL if reg.external else reg.name,
                "namespace": REDACTED_NAMESPACE if namespace in external_namespaces else namespace,
                "loaded": definition is not None,
            }
        )
    return {
        "tools": tools,
        "redacted": {
            "tools": sum(1 for reg, _ in visible if reg.external),
            "namespaces": len(external_namespaces),
        },
    }
