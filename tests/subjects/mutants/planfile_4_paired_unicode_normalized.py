"""PLANFILE-4 broken: the paired-computer executor compares a write's path with the plan path after
Unicode compatibility normalization (NFKC, as a normalization-insensitive disk on the paired computer
would), so another spelling of the plan path (decomposed, or with compatibility characters) is
admitted as the plan file."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-4"


def _folded(path: str) -> str:
    return unicodedata.normalize("NFKC", path)


class NormalizingPairedSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> Any:
        plan = access.plan_file
        if op.executor == "paired" and plan and isinstance(op.path, str) and _folded(op.path) == _folded(plan):
            op = replace(op, path=plan)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=NormalizingPairedSandbox)
