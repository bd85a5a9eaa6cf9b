"""PLANFILE-3 broken, in the cell "Desktop, bare and naming the plan file": the sandbox counts a Desktop
operation as a view of the screen, not a mutation, so a read-only turn admits it (bare, or naming any path
in the roots). Every other operation the allowance does not grant is still refused."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-3"


class DesktopAsViewSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        if op.kind == "desktop" and access.read_only:
            # Decided as on a Build turn: only the roots confine it.
            return super()._decide(op, replace(access, read_only=False))
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=DesktopAsViewSandbox)
