"""PLANFILE-4 broken: the paired-computer executor takes an upload of the plan path like a write."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-4"


class UploadingSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if op.executor == "paired" and op.kind == "upload":
            op = replace(op, kind="write")
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=UploadingSandbox)
