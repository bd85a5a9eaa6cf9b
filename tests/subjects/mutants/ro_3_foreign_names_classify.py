"""RO-3 broken: an exact read-only name classifies the tool whoever owns it (another plugin's, a core tool)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-3"


def classify_foreign(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None:
        return
    names = manifest.exact_read_only
    rewrite_registry(host, lambda reg: replace(reg, read_only=True, plan_admitted=not reg.external)
                     if reg.name in names and not reg.read_only else None)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(classify_foreign)
