"""EXT-2 broken: an mcp__ name makes a tool external, even when it was registered external: false."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-2"


class PrefixContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        if str(getattr(tool, "name", "")).startswith("mcp__") and options.get("external", False) is False:
            options["external"] = True
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(PrefixContext)
