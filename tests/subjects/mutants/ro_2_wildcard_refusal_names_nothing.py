"""RO-2 broken, in the "clear error" cell: a ``readOnlyTools: ['mcp__*']`` without the matching
``provides.tools`` entry is refused, but the error names neither the wildcard nor the missing
``provides.tools`` entry ("invalid manifest"), so the plugin's author cannot tell what to add. Every
other manifest error keeps the reference host's words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.errors import ManifestError

RULE = "RO-2"


class TerseHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        try:
            return super().install_plugin(plugin, manifest=manifest, name=name)
        except ManifestError as exc:
            if exc.rule != "RO-2":
                raise
            raise ManifestError(
                f"invalid manifest for plugin {name or plugin.__name__!r}", subject="manifest"
            ) from None


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=TerseHost)
