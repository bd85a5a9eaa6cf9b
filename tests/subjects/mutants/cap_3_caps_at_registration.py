"""CAP-3 broken: external definitions are capped at registration, so the registry keeps only the capped copy.

Every composition is what the reference host advertises (capping a capped copy changes nothing);
only the loader, which searches the registry's text, can tell.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import Registration
from reference_host.schemas import capped_external_definition
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "CAP-3"


def _capped(reg: Registration) -> Registration | None:
    if not reg.external:
        return None
    description, parameters, _ = capped_external_definition(reg.name, reg.tool.description, reg.tool.parameters)
    if description == reg.tool.description and parameters == reg.tool.parameters:
        return None
    return replace(reg, tool=replace(reg.tool, description=description, parameters=parameters))


def _cap_registry(host: Host, report: Any) -> None:
    rewrite_registry(host, _capped)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(_cap_registry)
