"""MANIFEST-2 broken, cell "an external tool": the host matches ``deferLoading`` against the plugin's
own (internal) tools only; an external tool it names is advertised loaded from the start. deferLoading
defers matching tools, external ones included."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "MANIFEST-2"


def _undefer_external(host: Host, report: Any) -> None:
    def change(reg: Registration) -> Registration | None:
        return replace(reg, deferred=False) if reg.external and reg.deferred else None

    rewrite_registry(host, change)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_undefer_external)
