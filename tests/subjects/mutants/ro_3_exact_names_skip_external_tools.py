"""RO-3 broken, in the cell "the plugin's own tool, by exact name (the claim that counts)": the host takes
external tools to be classified by the ``mcp__*`` wildcard only, so an exact read-only name the plugin owns
classifies nothing when that tool is external. The catalog reports the plugin's own external tool, named
exactly in its ``readOnlyTools``, as not read-only, and read-only children do not receive it. Internal
tools claimed by exact name, and the wildcard form, are classified as before."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-3"
ALSO = {
    "EXT-2": "its plain-named external tool declared by exact name is expected read-only in the catalog",
    "EXT-3": "the accepted owner's read-only classification of an exactly declared external tool is what it follows",
    "EXT-4": "its deferred external tool declared by exact name is expected read-only in the catalog after loading",
}


def _unclassify_exact_external(host: Host, report: Any) -> None:
    manifest = host.registry.manifest(report.plugin)
    if manifest is None or manifest.external_read_only:
        return
    accepted = set(report.accepted)
    rewrite_registry(
        host,
        lambda reg: (
            replace(reg, read_only=False)
            if reg.plugin == manifest.name and reg.name in accepted and reg.external and reg.read_only
            else None
        ),
    )


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_unclassify_exact_external)
