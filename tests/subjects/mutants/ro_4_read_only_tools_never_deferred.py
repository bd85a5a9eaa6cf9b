"""RO-4 broken, in the cell "locked deferral: a deferLoading tool stays deferred": the host loads a tool
declared read-only eagerly, whatever ``deferLoading`` says, so on a Build turn a deferred read-only tool is
in the tool list from the start. Undeclared tools the manifest defers stay deferred."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "RO-4"
ALSO = {"PLAN-4": "a Plan turn reaches deferred read-only tools through the loader: this host never defers them"}


def _undefer_read_only(host: Host, report: Any) -> None:
    rewrite_registry(host, lambda reg: replace(reg, deferred=False) if reg.deferred and reg.read_only else None)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_undefer_read_only)
