"""EXT-3 broken: a registration rejected by a name collision still merges its origin and read-only
declaration into the winner's metadata."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.manifest import parse_manifest

RULE = "EXT-3"


class LeakyHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        report = super().install_plugin(plugin, manifest=manifest, name=name)
        parsed = parse_manifest(manifest, default_name=name or getattr(plugin, "__name__", None))
        specs = {t["name"]: t for t in (getattr(plugin, "document", None) or {}).get("tools", [])}
        for refusal in report.refused:
            winner, spec = self.registry.get(refusal.tool), specs.get(refusal.tool)
            if refusal.rule != "EXT-3" or winner is None or spec is None:
                continue
            external = (spec.get("options") or {}).get("external") is True
            read_only = refusal.tool in parsed.exact_read_only or (external and parsed.external_read_only)
            self.registry._tools[refusal.tool] = replace(
                winner,
                external=winner.external or external,
                read_only=winner.read_only or read_only,
                plan_admitted=winner.plan_admitted or (read_only and not external),
            )
        return report


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=LeakyHost)
