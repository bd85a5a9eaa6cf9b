"""PLAN-2 broken, in the cell "an undeclared tool of a plugin that declares others": the host keeps plan
admission per plugin, not per tool, so once a plugin declares any exact read-only name every internal tool
of that plugin runs on a Plan turn. The catalog still classifies only the declared tools, and a plugin
that declares nothing is still refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "PLAN-2"


def _admit_whole_plugin(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None or not manifest.exact_read_only:
        return
    rewrite_registry(
        host,
        lambda reg: (
            replace(reg, plan_admitted=True)
            if reg.plugin == manifest.name and not reg.external and not reg.plan_admitted
            else None
        ),
    )


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_admit_whole_plugin)
