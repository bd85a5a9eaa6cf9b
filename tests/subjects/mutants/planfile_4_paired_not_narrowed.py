"""PLANFILE-4 broken: the paired-computer executor's plan write is not narrowed to the parent (no scope)."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Rewrite, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-4"


class UnscopedSandbox(Sandbox):
    def perform(self, op: SandboxOp, access: SandboxAccess, *, rewrite: Rewrite | None = None) -> SandboxResult:
        return replace(super().perform(op, access, rewrite=rewrite), scope=None)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=UnscopedSandbox)
