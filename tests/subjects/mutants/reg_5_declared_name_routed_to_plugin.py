"""REG-5, broken: a name listed only in a manifest's ``provides.tools`` is callable: the host routes
it to the declaring plugin.

This host activates plugins lazily, the way editor extensions are activated by their contributed
command names: a call to a name that is not in the registry but that an installed manifest lists in
``provides.tools`` is routed to that plugin, through the usual boundary, plan, grant, hook and
validation stages, and only the (empty) handler slot then finds that the plugin never registered it,
which ends as a thrown, ``is_error`` result. The model's tool list and catalog are composed exactly
as the reference composes them (the declared name is absent from both); registered tools and names
no manifest lists are handled as the reference handles them.

Cell of the sentence: "names listed only in a manifest's ``provides`` register nothing", on the call
path: the declared-only name behaves as a registered tool (it reaches a handler and the pipeline
stages) instead of being an unknown tool.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session
from reference_host.tools import define_tool
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "REG-5"


class PluginNotActivated(RuntimeError):
    pass


def _declared_only(name: str, plugin: str) -> Registration:
    def execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        raise PluginNotActivated(f"plugin {plugin!r} declares {name!r} in provides.tools but registered no such tool")

    tool = define_tool(
        name=name,
        label=name,
        description=f"{name} (declared by {plugin})",
        parameters={"type": "object", "properties": {}},
        execute=execute,
    )
    return Registration(tool=tool, plugin=plugin, external=False)


class LazyActivationSession(Session):
    def _lookup(self, name: str) -> Registration | None:
        reg = super()._lookup(name)
        if reg is not None or self.host.registry.get(name) is not None:
            return reg
        for plugin in self.host.registry.plugins():
            manifest = self.host.registry.manifest(plugin)
            if manifest is None or name not in manifest.tools or name.endswith("*"):
                continue
            if self.restrictions.delegated_read_only and name not in manifest.exact_read_only:
                return None
            return _declared_only(name, plugin)  # routed to the declaring plugin
        return None


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(LazyActivationSession)
