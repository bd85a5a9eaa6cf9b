"""PLANFILE-3 broken, in the cell "lifecycle, bare and naming the plan file": the sandbox's plan allowance
covers every operation that names exactly the plan path, so a lifecycle operation naming the plan file is
admitted on a Plan turn. A bare lifecycle operation, and one naming any other path, is still refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from reference_host.sandbox.policy import is_plan_turn
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-3"


class PlanPathLifecycleSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if op.kind == "lifecycle" and is_plan_turn(op, access) and op.path is not None and op.path == access.plan_file:
            return None, {"path": self.resolve_guest_path(op.path)}
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=PlanPathLifecycleSandbox)
