"""DIAG-1 broken: cache diagnostics redact external tools by their ``mcp__`` prefix, so a plain-named
external tool (a bridge's snapshot-backed runner, say) keeps its name, and its namespace is redacted
only where it also hosts an ``mcp__``-named external tool.

The cell: an external tool whose name has no ``mcp__`` prefix, and the hosted namespace holding it.
``mcp__``-named external tools and their namespaces are redacted as in the reference host; an
``mcp__``-named internal tool stays unredacted (DIAG-2 holds); the catalog, tool list and payload are
untouched.

The sentence broken (RULES.md DIAG-1; seed): "Cache diagnostics get a separate projection that redacts
external tool names and every hosted namespace containing an external tool" / "tool names never imply
origin".
"""

from __future__ import annotations

from typing import Any

from reference_host.composition import REDACTED_NAMESPACE, REDACTED_TOOL
from reference_host.registry import CORE_PLUGIN, Registration
from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-1"


def _namespace(reg: Registration) -> str:
    return CORE_PLUGIN if reg.plugin == CORE_PLUGIN else f"plugin:{reg.plugin}"


def _looks_external(reg: Registration) -> bool:
    return reg.external and reg.name.startswith("mcp__")


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        hidden_namespaces = {_namespace(reg) for reg in registry if _looks_external(reg)}
        tools = []
        redacted: set[str] = set()
        # The diagnostics list the session's visible tools in the catalog's order.
        for entry, diagnosed in zip(answer["catalog"], answer["diagnostics"]["tools"], strict=True):
            reg = registry.get(entry["name"])
            if reg is None:
                tools.append(dict(diagnosed))
                continue
            namespace = _namespace(reg)
            if namespace in hidden_namespaces:
                redacted.add(namespace)
            tools.append(
                {
                    **diagnosed,
                    "name": REDACTED_TOOL if _looks_external(reg) else reg.name,
                    "namespace": REDACTED_NAMESPACE if namespace in hidden_namespaces else namespace,
                }
            )
        count = sum(1 for tool in tools if tool["name"] == REDACTED_TOOL)
        answer["diagnostics"] = {"tools": tools, "redacted": {"tools": count, "namespaces": len(redacted)}}
        return answer


def factory() -> Adapter:
    return Adapter()
