"""EXT-4 broken in the cell "a deferred mcp__-named internal tool stays internal once loaded": the
loader classifies what it loads by name (MCP tools are ``mcp__``), so a deferred internal tool named
``mcp__...`` becomes external once ToolSearch loads it: no ``reason``, capped, redacted, refused in
Plan. Never-deferred tools, and deferred external tools, keep their registered origin."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._calls_support import RegistrationSeenSession, session_mutant

RULE = "EXT-4"


class NameLoaderSession(RegistrationSeenSession):
    def seen(self, reg: Registration) -> Registration:
        if reg.deferred and not reg.external and reg.name.startswith("mcp__") and reg.name in self.loaded:
            return replace(reg, external=True, plan_admitted=False)
        return reg


def factory() -> ReferenceHostAdapter:
    return session_mutant(NameLoaderSession)
