"""ACCESS-5 broken, cell "core file tools after a change between two of their calls": the core file
tools read the session's access the first time one of them runs and keep it, so a change of roots
between two file-tool calls is not seen by the second. currentAccess() itself, sandbox operations and
plugin handlers read the live access as the reference host does."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-5"
ALSO = {
    "ACCESS-8": "after a change of roots the file tools confine to other roots than currentAccess() reports",
}


class FirstRootsSession(Session):
    kept: SandboxAccess | None = None

    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        live = Session.sandbox_access(self)
        if self.kept is None:
            self.kept = live
        kept = self.kept

        def first_roots() -> SandboxAccess:
            # The turn's read-only state and plan file are read fresh; only the roots were kept.
            fresh = Session.sandbox_access(self)
            return SandboxAccess(read_only=fresh.read_only, plan_file=fresh.plan_file, roots=kept.roots)

        self.sandbox_access = first_roots  # type: ignore[method-assign]
        try:
            return super().run_core_tool(name, call_id, params)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=FirstRootsSession)
