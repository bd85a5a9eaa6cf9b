"""EXT-2 broken in the cell "plain name, external: true: external": the host honours ``external: true``
only for ``mcp__`` names (external tools come from the MCP bridge, it reasons) and registers a plainly
named tool with ``external: true`` as internal: it gains ``reason``, is validated, never capped,
never redacted. ``mcp__`` tools of either origin are right."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-2"


class PrefixOnlyContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        if options.get("external") is True and not str(getattr(tool, "name", "")).startswith("mcp__"):
            options["external"] = False
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(PrefixOnlyContext)
