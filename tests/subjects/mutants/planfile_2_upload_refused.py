"""PLANFILE-2 broken, in the cell "the sandbox: a write and an upload to exactly the plan path": the
sandbox's plan allowance admits a write of the plan path but refuses an upload of it (an upload taken for
a transfer, not a write). Writes of the plan path, and refusals elsewhere, are as before."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from reference_host.sandbox.policy import is_plan_turn, refuse
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class WriteOnlyPlanSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if op.kind == "upload" and op.executor == "sandbox" and is_plan_turn(op, access):
            return refuse("PLANFILE-2", op, "the plan allowance admits a write, not an upload"), {}
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=WriteOnlyPlanSandbox)
