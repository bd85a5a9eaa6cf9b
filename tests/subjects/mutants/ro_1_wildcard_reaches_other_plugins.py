"""RO-1 broken: one plugin's ``mcp__*`` read-only wildcard classifies every plugin's external tools.

Rule (RO-1): ``provides.readOnlyTools: ['mcp__*']`` expands to that plugin's own registered external
tools only: not its internal tools, not another plugin's. Cell: "not another plugin's": external
tools registered by a second plugin that declares no wildcard (before or after the declaring
plugin). This host keeps the wildcard as one registry-wide switch ("external tools are read-only")
instead of expanding it per owner, so once any installed plugin declares it, every external
registration in the registry is classified read-only. Plan mode still never runs an external tool
(``planAdmitted`` stays false) and internal tools keep their own classification.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-1"


def _global_wildcard(host: Host, _report: Any) -> None:
    registry = host.registry
    if not any((m := registry.manifest(p)) is not None and m.external_read_only for p in registry.plugins()):
        return

    def classify(reg: Registration) -> Registration | None:
        return replace(reg, read_only=True) if reg.external and not reg.read_only else None

    rewrite_registry(host, classify)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_global_wildcard)
