"""EXT-4 broken in the cell "a deferred mcp__-named internal tool stays internal once loaded": the
loader classifies what it loads by name (MCP tools are ``mcp__``), so a deferred internal tool named
``mcp__...`` becomes external once ToolSearch loads it: no ``reason``, capped, redacted, refused in
Plan. Never-deferred tools, and deferred external tools, keep their registered origin."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "EXT-4"


class NameLoaderSession(Session):
    def _as_loaded(self, reg: Any) -> Any:
        if (
            reg is not None
            and reg.deferred
            and not reg.external
            and reg.name.startswith("mcp__")
            and reg.name in self.loaded
        ):
            return replace(reg, external=True, plan_admitted=False)
        return reg

    def _lookup(self, name: str) -> Any:
        return self._as_loaded(super()._lookup(name))

    def compose(self) -> Composition:
        return compose_session([self._as_loaded(reg) for reg in self.host.registry], self.view())


def factory() -> ReferenceHostAdapter:
    return session_mutant(NameLoaderSession)
