"""MANIFEST-2 broken, cell "another plugin's tool named in a plugin's deferLoading": the host gathers
the names of every manifest's ``deferLoading`` list into one instance-wide list, so a plugin that names
another plugin's tool defers that tool too. A manifest's deferLoading defers the plugin's own matching
tools; it says nothing about tools it does not own. A plugin's own list still defers its own tools."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import CORE_PLUGIN, Registration
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "MANIFEST-2"


def _defer_across_plugins(host: Host, report: Any) -> None:
    manifests = [host.registry.manifest(name) for name in host.registry.plugins()]
    # Only lists of names and patterns are gathered; ``deferLoading: true`` names nothing.
    listed = [m for m in manifests if m is not None and not isinstance(m.defer_loading, bool)]

    def change(reg: Registration) -> Registration | None:
        if reg.plugin == CORE_PLUGIN or reg.deferred:
            return None
        return replace(reg, deferred=True) if any(m.defers(reg.name) for m in listed) else None

    rewrite_registry(host, change)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_defer_across_plugins)
