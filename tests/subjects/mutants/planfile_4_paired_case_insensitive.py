"""PLANFILE-4 broken: the paired-computer executor compares a write's path with the plan path without
regard to case (as a case-insensitive disk on the paired computer would), so ``PLAN.md`` is admitted
as the plan file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-4"


class CaseFoldingSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        plan = access.plan_file
        if op.executor == "paired" and plan and isinstance(op.path, str) and op.path.casefold() == plan.casefold():
            op = replace(op, path=plan)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=CaseFoldingSandbox)
