"""RO-2 broken: readOnlyTools ['mcp__*'] is accepted without the matching provides.tools entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host

RULE = "RO-2"


class LenientHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        provides = dict((manifest or {}).get("provides") or {})
        if "mcp__*" in (provides.get("readOnlyTools") or []) and "mcp__*" not in (provides.get("tools") or []):
            provides["tools"] = [*(provides.get("tools") or []), "mcp__*"]
            manifest = {**(manifest or {}), "provides": provides}
        return super().install_plugin(plugin, manifest=manifest, name=name)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=LenientHost)
