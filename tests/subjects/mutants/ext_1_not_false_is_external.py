"""EXT-1 broken: anything but an explicit external: false counts as external, so an omitted option
makes the tool external instead of internal (and null is coerced to true instead of refused)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-1"


class NotFalseContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        if options.get("external") is None:
            options["external"] = True
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(NotFalseContext)
