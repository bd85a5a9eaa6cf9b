"""ACCESS-8 broken in the cell "the plan-file allowance under live roots that leave the plan file out".

Sentence (seed ¶42): "File and directory tools consume the same host policy." RULES.md ACCESS-8:
"File and directory tools consume the same host policy as currentAccess()" (whose ``roots`` confine
every operation; docs/access-model.md §3).

Cell: a managed or local Project conversation's Plan turn whose account's live ``roots`` are narrowed
to a directory that does not hold the plan file (``/workspace/src``, say); a write/upload of the exact
plan file, or a create-only mkdir of its missing parents, through the sandbox, the paired executor or
the Write/Edit tools.

What the host does: it reads ``planFile`` as a core-minted allowance that stands on its own and checks
plan-file operations against the whole workspace instead of the live roots. Everything else the
allowance decides (exact path, create-only parents, no other kinds) is as the reference host; every
other operation keeps the live roots.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Sandbox, SandboxAccess, policy
from reference_host.sandbox.paths import GUEST_ROOT
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-8"


class PlanFileOutsideRootsSandbox(Sandbox):
    def _decide(self, op, access):  # type: ignore[no-untyped-def]
        if policy.is_plan_turn(op, access) and access.plan_file is not None and op.kind in ("write", "upload", "mkdir"):
            wide = SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=(GUEST_ROOT,))
            decision, resolved = super()._decide(op, wide)
            if decision is None:
                return decision, resolved
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=PlanFileOutsideRootsSandbox)
