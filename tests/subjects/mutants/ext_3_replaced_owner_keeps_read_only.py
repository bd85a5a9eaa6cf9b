"""EXT-3 broken on a last-wins host: the later registration replaces the earlier one, but the
earlier owner's read-only classification stays on the name (the replaced owner contributes)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import replace

RULE = "EXT-3"


class LeakyHost(Host):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(collisions="last-wins", **kwargs)

    def install_plugin(self, plugin: Any, **kwargs: Any) -> Any:
        before = {reg.name: reg for reg in self.registry}
        report = super().install_plugin(plugin, **kwargs)
        tools = self.registry._tools
        for name, old in before.items():
            new = tools.get(name)
            if new is not None and new.plugin != old.plugin and old.read_only and not new.read_only:
                tools[name] = replace(new, read_only=True, plan_admitted=old.plan_admitted)
        return report


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=LeakyHost)
