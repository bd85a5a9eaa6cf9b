"""SCOPE-1 broken for one platform only: a tool scoped to "discord" is instance-wide; "web" works."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._composition_support import registry_mutant, replace, rewrite_registry

RULE = "SCOPE-1"


def unscope_discord(host: Host, report: Any) -> None:
    rewrite_registry(host, lambda reg: replace(reg, platform=None) if reg.platform == "discord" else None)


def factory() -> ReferenceHostAdapter:
    return registry_mutant(unscope_discord)
