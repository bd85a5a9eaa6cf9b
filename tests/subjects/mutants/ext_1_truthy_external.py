"""EXT-1 broken: a non-boolean external option is coerced by truthiness instead of refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-1"


class CoercingContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        if "external" in options and not isinstance(options["external"], bool):
            options["external"] = bool(options["external"])
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(CoercingContext)
