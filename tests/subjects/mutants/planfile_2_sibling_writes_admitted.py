"""PLANFILE-2 broken: the allowance is compared by directory, so any file beside the plan file is writable."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"
ALSO = {
    "PLANFILE-4": "the paired executor goes through the same allowance, so its sibling row is admitted too",
}


class SiblingSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if (access.read_only and access.plan_file and op.kind in ("write", "upload") and isinstance(op.path, str)
                and op.path.rpartition("/")[0] == access.plan_file.rpartition("/")[0]):
            access = replace(access, plan_file=op.path)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=SiblingSandbox)
