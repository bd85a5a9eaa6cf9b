"""PLANFILE-3 broken: a Plan turn may remove its own plan file."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-3"
ALSO = {
    "PLANFILE-4": "the paired executor asked to remove the plan file is admitted too",
}


class RemovingSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if op.kind == "remove" and access.read_only and access.plan_file is not None and op.path == access.plan_file:
            return None, {"path": self.resolve_guest_path(op.path)}
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=RemovingSandbox)
