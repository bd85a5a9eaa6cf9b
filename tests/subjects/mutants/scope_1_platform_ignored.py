"""SCOPE-1 broken: the platform option is accepted but ignored: a platform-scoped tool is instance-wide."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "SCOPE-1"


def unscope(host: Host, report: Any) -> None:
    rewrite_registry(host, lambda reg: replace(reg, platform=None) if reg.platform is not None else None)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(unscope)
