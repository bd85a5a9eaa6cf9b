"""PLANFILE-3 broken: on a Plan turn the sandbox admits renaming the plan file itself to another name (a
rename is classified by its source, and the source is the one writable file).

Cell: ``rename`` whose source is the plan file and whose destination is another path in the roots;
renames onto the plan file, renames of other files, and remove/copy/lifecycle/Desktop are refused
as before. Sentence (seed ¶41; RULES.md PLANFILE-3): "It grants no remove, rename, copy, lifecycle or
Desktop permission", "the plan file itself included".
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-3"


class RenameBySourceSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        on_plan = access.read_only and access.plan_file is not None and op.path == access.plan_file
        if op.kind == "rename" and op.executor == "sandbox" and on_plan:
            # Decided as a write of its source, the plan file; performed as the rename it is.
            return super()._decide(replace(op, kind="write"), access)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=RenameBySourceSandbox)
