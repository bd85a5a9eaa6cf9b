"""PLANFILE-2 broken: on a Plan turn the sandbox admits a create-only ``mkdir`` of the plan path itself
(an off-by-one in "ancestor of the plan file": the plan file counts as one of its own parents).

Cell: ``mkdir`` whose target is exactly the plan path (a directory where the plan file goes); the
missing ancestors are still created create-only, siblings and existing directories are refused, and
writes and uploads are unchanged. Sentence (seed ¶41; RULES.md PLANFILE-2): "Sandbox consumes it at
each file operation to admit that single plan write/upload and its create-only parent directories";
"nothing else".
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class PlanPathIsParentSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        on_plan = access.read_only and access.plan_file is not None and op.path == access.plan_file
        if op.kind == "mkdir" and op.executor == "sandbox" and on_plan:
            # Decided as the write of the plan file; performed as the mkdir it is.
            return super()._decide(replace(op, kind="write"), access)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=PlanPathIsParentSandbox)
