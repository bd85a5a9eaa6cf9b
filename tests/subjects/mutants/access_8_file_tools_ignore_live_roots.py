"""ACCESS-8 broken: the core file tools confine to the whole workspace, not to the live policy's roots
that currentAccess() reports."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-8"


class WideFileToolsSession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        def everywhere() -> SandboxAccess:
            access = Session.sandbox_access(self)
            return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file)

        self.sandbox_access = everywhere  # type: ignore[method-assign]
        try:
            return super().run_core_tool(name, call_id, params)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WideFileToolsSession)
