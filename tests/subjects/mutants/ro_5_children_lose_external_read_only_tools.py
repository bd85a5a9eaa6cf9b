"""RO-5 broken, in the cell "external tools declared read-only, in a read-only child": the host treats a
read-only sub-agent like a Plan turn and keeps every external tool from it, so a tool classified read-only
by the ``mcp__*`` wildcard or by its own exact name (an ``mcp__`` or a plain-named external tool) is neither
offered to a delegated read-only child (catalog, tool list, payload) nor callable there (an unknown tool).
Internal read-only tools, and every non-read-only session, are as in the reference host.

The rule's sentence: "The read-only declaration decides what read-only sub-agents receive" (seed: "The same
declaration decides what read-only sub-agents receive"; docs/readings.md RO-1 and RO-3: a read-only child
receives and runs the plugin's external tools either form declared; only plan mode makes an exception).
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import REDACTED_TOOL, Composition
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-5"


def _namespace(reg: Registration) -> str:
    return CORE_PLUGIN if reg.plugin == CORE_PLUGIN else f"plugin:{reg.plugin}"


class NoExternalInChildrenSession(Session):
    def _lookup(self, name: str) -> Registration | None:
        reg = super()._lookup(name)
        if reg is not None and reg.external and self.restrictions.delegated_read_only:
            return None
        return reg

    def compose(self) -> Composition:
        composition = super().compose()
        if not self.restrictions.delegated_read_only:
            return composition
        registry = self.host.registry

        def external(entry: dict) -> bool:
            reg = registry.get(entry["name"])
            return reg is not None and reg.external

        keep = [not external(entry) for entry in composition.catalog]
        kept = [entry for entry, k in zip(composition.catalog, keep, strict=True) if k]
        composition.catalog = kept
        composition.tools = [entry for entry in composition.tools if not external(entry)]
        composition.payload = {
            **composition.payload,
            "tools": [entry for entry in composition.payload["tools"] if not external(entry)],
        }
        # The diagnostics projection lists the same tools in the catalog's order: drop the same ones.
        hosting = {_namespace(reg) for reg in registry if reg.external}
        diag = [entry for entry, k in zip(composition.diagnostics["tools"], keep, strict=True) if k]
        namespaces = {_namespace(registry.get(entry["name"])) for entry in kept} & hosting
        composition.diagnostics = {
            "tools": diag,
            "redacted": {"tools": sum(e["name"] == REDACTED_TOOL for e in diag), "namespaces": len(namespaces)},
        }
        return composition


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(NoExternalInChildrenSession)
