"""Plumbing for the EXT-3 mutants: a host that, after each install, hands every registration the
collision rejected (with its registration options and its plugin's manifest) to :meth:`after_collisions`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference_host import Host
from reference_host.manifest import Manifest, parse_manifest


@dataclass(frozen=True)
class Rejected:
    """One registration rejected by a name collision (EXT-3)."""

    name: str
    external: bool
    manifest: Manifest

    @property
    def exact_read_only(self) -> bool:
        return self.name in self.manifest.exact_read_only

    @property
    def wildcard_read_only(self) -> bool:
        return self.external and self.manifest.external_read_only


class CollisionHost(Host):
    def after_collisions(self, rejected: list[Rejected]) -> None:
        """Called after every install with what that install lost to collisions."""

    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        report = super().install_plugin(plugin, manifest=manifest, name=name)
        parsed = parse_manifest(manifest, default_name=name or getattr(plugin, "__name__", None))
        specs = {t["name"]: t for t in (getattr(plugin, "document", None) or {}).get("tools", [])}
        rejected = [
            Rejected(r.tool, (specs[r.tool].get("options") or {}).get("external") is True, parsed)
            for r in report.refused
            if r.rule == "EXT-3" and r.tool in specs and self.registry.get(r.tool) is not None
        ]
        self.after_collisions(rejected)
        return report
