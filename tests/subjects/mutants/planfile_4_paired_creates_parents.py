"""PLANFILE-4 broken: on a Plan turn the paired-computer executor gets the sandbox's whole allowance
minus uploads: besides the write of the plan file, it admits create-only ``mkdir`` of the plan
file's missing parent directories.

Cell: the paired executor's ``mkdir`` of an ancestor of the plan path; its write of the plan file
(narrowed to the parent), its upload and every other kind, and the sandbox executor's own ``mkdir``,
are decided as before. Sentence (seed ¶41; RULES.md PLANFILE-4): "the paired-computer executor
admits only a write to that same exact path and narrows the operation to its parent directory."
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-4"


class PairedMkdirSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        plan = access.plan_file
        ancestor = plan is not None and isinstance(op.path, str) and plan.startswith(op.path + "/")
        if op.executor == "paired" and op.kind == "mkdir" and access.read_only and ancestor:
            return super()._decide(replace(op, executor="sandbox"), access)
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=PairedMkdirSandbox)
