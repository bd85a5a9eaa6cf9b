"""CAP-3 broken in the cell "mcp__-named internal, and external option omitted": the host keeps the
registration's ``external`` option as it was given (true, false or absent) and its composition caps
every tool whose option is not an explicit ``false``, reading an absent option as "origin unknown,
cap to be safe". Its metadata normalizes the option as it should (an omitted option is internal: the
catalog says so, the tool gains ``reason`` and is validated), so only an internal tool registered
without the option and over a cap shows it: its description is cut, its large schema replaced."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_host import Host
from reference_host.registry import Registration
from reference_host.schemas import capped_external_definition, with_reason
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "CAP-3"


class UnstatedOriginHost(Host):
    """Remembers which tools were registered without the ``external`` option."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unstated: set[str] = set()

    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        report = super().install_plugin(plugin, manifest=manifest, name=name)
        for spec in (getattr(plugin, "document", None) or {}).get("tools", []):
            if "external" not in (spec.get("options") or {}) and spec.get("name") in report.accepted:
                self.unstated.add(spec["name"])
        return report


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if reg.external or reg.name not in self.host.unstated:
            return entry
        description, parameters, replaced = capped_external_definition(
            reg.name, reg.tool.description, reg.tool.parameters
        )
        entry["description"] = description
        if replaced:
            entry["parameters"] = with_reason(parameters)
        return entry


def factory() -> Adapter:
    return Adapter(host_factory=UnstatedOriginHost)
