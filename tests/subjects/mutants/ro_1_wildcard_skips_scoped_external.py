"""RO-1 broken: the ``mcp__*`` wildcard does not reach the plugin's scoped external tools.

Rule (RO-1): ``provides.readOnlyTools: ['mcp__*']`` expands to that plugin's own registered external
tools. Cell: the plugin's own external tools registered with a scope option (``ownerUserId``,
``projectId`` or ``platform``). This host expands the wildcard over the plugin's instance-wide
contributions only (scoped contributions are kept in per-scope tables the expansion never visits),
so a scoped external tool of the declaring plugin stays not read-only: its catalog entry says so and
a read-only sub-agent in its scope is not offered it. Unscoped external tools, exact read-only
names, and internal tools are classified as on the reference host.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-1"


def _instance_wide_expansion(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None or not manifest.external_read_only:
        return
    accepted = set(report.accepted)

    def unclassify(reg: Registration) -> Registration | None:
        scoped = reg.owner_user_id is not None or reg.project_id is not None or reg.platform is not None
        if (
            reg.plugin == manifest.name
            and reg.name in accepted
            and reg.external
            and scoped
            and reg.read_only
            and reg.name not in manifest.exact_read_only
        ):
            return replace(reg, read_only=False)
        return None

    rewrite_registry(host, unclassify)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_instance_wide_expansion)
