"""PLAN-2 broken, in the cell "plugin tools declared read-only by exact name": the host reads "never an
external tool, whichever form declared it" as "no plan admission for a plugin that uses the wildcard
form", so a plugin whose ``readOnlyTools`` holds ``mcp__*`` besides exact names gets none of its exact
names admitted on a Plan turn. The catalog still reports those tools read-only, read-only children still
receive them, and a plugin without the wildcard keeps its exact names."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "PLAN-2"


def _drop_plan_admission(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None or not manifest.external_read_only:
        return
    rewrite_registry(
        host,
        lambda reg: replace(reg, plan_admitted=False) if reg.plugin == manifest.name and reg.plan_admitted else None,
    )


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_drop_plan_admission)
