"""RO-3 broken, in the cell "a core tool (Write), claimed by exact name": the ownership check of an exact
read-only name looks only among the plugins' registrations, so a name no plugin owns is taken as free to
classify, and a plugin's claim on the core ``Write`` marks the core tool read-only. The catalog reports
``Write`` read-only and read-only children receive it; another plugin's tool stays unclassified."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import CORE_PLUGIN
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-3"


def _classify_claimed_core_tools(host: Host, report: Any) -> None:
    claimed: set[str] = set()
    for plugin in host.registry.plugins():
        manifest = host.registry.manifest(plugin)
        if manifest is not None:
            claimed |= set(manifest.exact_read_only)
    rewrite_registry(
        host,
        lambda reg: (
            replace(reg, read_only=True)
            if reg.plugin == CORE_PLUGIN and reg.name in claimed and not reg.read_only
            else None
        ),
    )


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_classify_claimed_core_tools)
