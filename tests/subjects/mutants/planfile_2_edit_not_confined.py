"""PLANFILE-2 broken: on a Plan turn Edit runs with the turn's write access, not the plan allowance:
Edit only changes a file the session read, so it is taken to be safe, and any read file can be edited."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class EditingPlanSession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name != "Edit" or not self.restrictions.plan_turn:
            return super().run_core_tool(name, call_id, params)

        def writable() -> SandboxAccess:
            access = Session.sandbox_access(self)
            return SandboxAccess(read_only=False, plan_file=None, roots=access.roots)

        self.sandbox_access = writable  # type: ignore[method-assign]
        try:
            return super().run_core_tool(name, call_id, params)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=EditingPlanSession)
