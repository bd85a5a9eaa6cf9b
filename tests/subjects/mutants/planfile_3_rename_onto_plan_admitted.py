"""PLANFILE-3 broken, in the cell "rename: the plan file away, a sibling onto the plan path": the sandbox
takes a rename whose destination is the plan path as a write of the plan file, so on a Plan turn a draft
can be renamed onto the plan path (the draft disappears). Renaming the plan file away is still refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from reference_host.sandbox.policy import is_plan_turn
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-3"


class OntoPlanSandbox(Sandbox):
    """Admits an operation of ``kind`` whose destination is the plan path as the plan allowance admits a
    write of it, its source needing only to lie in the roots."""

    kind = "rename"

    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        onto_plan = access.plan_file is not None and op.dest == access.plan_file
        if op.kind != self.kind or not is_plan_turn(op, access) or not onto_plan:
            return super()._decide(op, access)
        decision, resolved = super()._decide(SandboxOp("write", op.dest, executor=op.executor), access)
        if decision is not None:
            return decision, resolved
        source, _ = super()._decide(SandboxOp("read", op.path, executor=op.executor), access)
        if source is not None:
            return source, {}
        return None, {"path": self.resolve_guest_path(op.path), "dest": resolved["path"]}


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=OntoPlanSandbox)
