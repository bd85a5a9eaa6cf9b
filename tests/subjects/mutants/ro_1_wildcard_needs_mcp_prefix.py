"""RO-1 broken, in the cell "the plugin's own registered external tools (classified)": the host expands
``readOnlyTools: ['mcp__*']`` as a name pattern over the plugin's own external tools, so an external tool
of that plugin with a plain name (``external: true``, no ``mcp__`` prefix) is not classified read-only:
the catalog reports it not read-only and read-only children do not receive it. Its ``mcp__``-named external
tools are classified as before; tool names never imply origin, and they do not limit the wildcard either."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-1"


def _pattern_expansion(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None or not manifest.external_read_only:
        return
    accepted = set(report.accepted)
    rewrite_registry(
        host,
        lambda reg: (
            replace(reg, read_only=False)
            if reg.plugin == manifest.name
            and reg.name in accepted
            and reg.external
            and not reg.name.startswith("mcp__")
            and reg.name not in manifest.exact_read_only
            else None
        ),
    )


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_pattern_expansion)
