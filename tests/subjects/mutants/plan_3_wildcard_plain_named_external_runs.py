"""PLAN-3 broken, for external tools with plain names declared read-only by the wildcard: the plan-mode
policy takes ``readOnlyTools: ['mcp__*']`` for a declaration of the plugin's MCP tools and tells them by
their ``mcp__`` name, so an external tool with a plain name (``external: true``, ``lookup``) that the
wildcard classified read-only is admitted on a Plan turn. External tools declared by their exact name,
``mcp__``-named or plain, are still refused."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLAN-3"


class WildcardNotingHost(Host):
    """Notes which tools a plugin's ``mcp__*`` wildcard (and no exact name) declared read-only."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.by_wildcard: set[str] = set()

    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        report = super().install_plugin(plugin, manifest=manifest, name=name)
        declared = ((manifest or {}).get("provides") or {}).get("readOnlyTools") or []
        if "mcp__*" in declared:
            self.by_wildcard.update(n for n in report.accepted if n not in declared)
        return report


class WildcardByNamePlanPolicy(Session):
    def _stage_plan(self, gate: Any) -> Any:
        reg = gate.reg
        by_wildcard = reg.name in getattr(self.host, "by_wildcard", ())
        if self.restrictions.plan_turn and reg.external and by_wildcard and not reg.name.startswith("mcp__"):
            return None  # the later stages run as on a Build turn
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WildcardByNamePlanPolicy, host_class=WildcardNotingHost)
