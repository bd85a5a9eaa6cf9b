"""REG-5 broken in the cell "a plugin whose register() registers nothing": the host keeps a legacy
fallback for plugins written before ``registerTool``: when ``register()`` registers nothing, the
names in the manifest's provides.tools are advertised as the plugin's tools. A plugin that registers
anything is listed by its registrations only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_host import Host
from reference_host.manifest import Manifest
from tests.subjects.mutants._manifest_names_support import AdvertiseDeclared

RULE = "REG-5"


class FallbackHost(Host):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.registered_nothing: set[str] = set()

    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        report = super().install_plugin(plugin, manifest=manifest, name=name)
        if not report.accepted and not report.refused:
            self.registered_nothing.add(report.plugin)
        return report


class Adapter(AdvertiseDeclared):
    def declared(self, manifest: Manifest, session: str) -> list[str]:
        if manifest.name not in self.host.registered_nothing:
            return []
        return [name for name in manifest.tools if not name.endswith("*")]


def factory() -> Adapter:
    return Adapter(host_factory=FallbackHost)
