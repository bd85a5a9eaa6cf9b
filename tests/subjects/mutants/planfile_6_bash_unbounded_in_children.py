"""PLANFILE-6 broken: Bash applies the non-destructive boundary on the session's own Plan turn only; in a
delegated read-only child it runs every command."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-6"


class PlanOnlyBoundarySession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name != "Bash" or self.parent is None or self.restrictions.plan_turn:
            return super().run_core_tool(name, call_id, params)

        def own_turn() -> SandboxAccess:
            access = Session.sandbox_access(self)
            return SandboxAccess(read_only=False, plan_file=access.plan_file, roots=access.roots)

        self.sandbox_access = own_turn  # type: ignore[method-assign]
        try:
            return super().run_core_tool(name, call_id, params)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanOnlyBoundarySession)
