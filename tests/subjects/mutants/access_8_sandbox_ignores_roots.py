"""ACCESS-8 broken, cell "the sandbox" executor: the core file tools confine to currentAccess().roots,
but a sandbox operation (the executor the host's own tools and commands use) is confined only to the
workspace, whatever the live roots say. File and directory tools consume the same policy as
currentAccess(), on every executor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess, SandboxResult
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-8"


class WorkspaceSandboxSession(Session):
    def sandbox_op(self, op: Mapping[str, Any]) -> SandboxResult:
        def workspace_only() -> SandboxAccess:
            access = Session.sandbox_access(self)
            return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file)

        self.sandbox_access = workspace_only  # type: ignore[method-assign]
        try:
            return super().sandbox_op(op)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WorkspaceSandboxSession)
