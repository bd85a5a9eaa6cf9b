"""RO-2 broken, in the cell "provides.tools lists some mcp__ names but not the family entry": the host
takes any ``mcp__``-prefixed ``provides.tools`` entry (``mcp__srv__read``) as the wildcard's matching
entry, so a manifest declaring ``readOnlyTools: ['mcp__*']`` without ``'mcp__*'`` in ``provides.tools`` is
accepted (and its wildcard classifies the plugin's external tools) as long as it lists one such name. A
manifest with no ``mcp__`` entry at all is still refused. The manifest the host keeps, and its audit, are
the one the plugin wrote.

The rule's sentence: "That wildcard needs the matching provides.tools entry; without it the manifest is
refused with a clear error" (seed: "A declared provides.readOnlyTools: ['mcp__*'] expands only to that
plugin's registered external tools and requires the matching provides.tools entry").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.manifest import EXTERNAL_WILDCARD
from reference_host.registry import InstallReport, _audit_findings
from tests.subjects.mutants.base import host_mutant

RULE = "RO-2"


def _family_listed(manifest: Any) -> list[str] | None:
    """The provides.tools of a manifest whose wildcard this host takes as matched by named mcp__ entries."""
    if not isinstance(manifest, Mapping) or not isinstance(manifest.get("provides"), Mapping):
        return None
    provides = manifest["provides"]
    tools, read_only = provides.get("tools"), provides.get("readOnlyTools")
    if not isinstance(tools, list) or not isinstance(read_only, list) or EXTERNAL_WILDCARD not in read_only:
        return None
    if EXTERNAL_WILDCARD in tools or not any(isinstance(t, str) and t.startswith("mcp__") for t in tools):
        return None
    return tools


class FamilyByPrefixHost(Host):
    def install_plugin(
        self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None
    ) -> InstallReport:
        tools = _family_listed(manifest)
        if tools is None:
            return super().install_plugin(plugin, manifest=manifest, name=name)
        assert manifest is not None
        patched = {**manifest, "provides": {**manifest["provides"], "tools": [*tools, EXTERNAL_WILDCARD]}}
        report = super().install_plugin(plugin, manifest=patched, name=name)
        kept = replace(self.registry.manifest(report.plugin), tools=tuple(tools), raw=dict(manifest))
        self.registry._manifests[report.plugin] = kept
        report.findings = [f for f in report.findings if f.rule != "MANIFEST-3"] + _audit_findings(
            kept, report.accepted
        )
        return report


def factory() -> ReferenceHostAdapter:
    return host_mutant(FamilyByPrefixHost)
