"""EXT-2 broken: in a plugin whose manifest declares the ``mcp__*`` family, ``mcp__`` names are external.

Rule (EXT-2): origin comes from the ``external`` option alone: a name never implies it, and an
explicit false stays internal even with an ``mcp__`` prefix. Cell: an ``mcp__``-named tool registered
with an explicit ``external: false`` by a plugin whose ``provides.tools`` lists ``mcp__*`` (the entry the
read-only wildcard requires). This host reads that manifest entry as "this plugin provides MCP
tools" and takes each of its ``mcp__``-named registrations as external, whatever the option says. Its
plain-named tools, and ``mcp__`` names in plugins that do not declare the family, keep the origin their
option gives; a non-boolean option is still refused (EXT-1). Where the plugin also declares
``readOnlyTools: ['mcp__*']`` the wildcard classifies those tools read-only, as it does any tool the host
holds external: the wildcard reads the host's own origin, so RO-1's checks are blocked by EXT-2, not
failed (docs/readings.md, "RO-1 (a wrong origin)").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.errors import ManifestError
from reference_host.manifest import EXTERNAL_WILDCARD, parse_manifest
from reference_host.registry import _UNSET, RegistrationContext
from tests.subjects.mutants._calls_support import _Wrapped

RULE = "EXT-2"


class FamilyContext(RegistrationContext):
    def register_tool(self, tool: Any, *, external: Any = _UNSET, **options: Any) -> bool:
        name = getattr(tool, "name", None)
        if isinstance(name, str) and name.startswith("mcp__") and (external is _UNSET or isinstance(external, bool)):
            external = True
        return super().register_tool(tool, external=external, **options)

    registerTool = register_tool  # noqa: N815


class FamilyHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        try:
            parsed = parse_manifest(manifest, default_name=name or getattr(plugin, "__name__", None))
        except ManifestError:
            parsed = None  # the reference host refuses it below, as always
        if parsed is not None and EXTERNAL_WILDCARD in parsed.tools and callable(getattr(plugin, "register", None)):
            plugin = _Wrapped(plugin, FamilyContext)
        return super().install_plugin(plugin, manifest=manifest, name=name)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=FamilyHost)
