"""SCOPE-3, broken: a visible scoped tool is admitted by plan-mode policy because its scope matched.

This host treats a scope match as an authorization: a tool registered with ``ownerUserId``,
``projectId`` or ``platform`` (the visitor's-page tools the seam names as the use case) is taken to
be meant for exactly this kind of turn, so its plan-mode admission reads "in scope" as "admitted". On
a Plan turn such a tool runs although it is in no read-only set; unscoped tools are held to the
read-only set as the reference holds them, external tools are still never run in plan mode, and grants,
deny-list, boundary and hooks are applied to scoped tools as usual.

Cell of the sentence: "a visible scoped tool still passes ... policy", the policy being plan-mode
policy on a Plan turn, for an internal scoped tool outside the read-only set.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "SCOPE-3"
ALSO = {"PLAN-2": "a scoped internal tool outside the read-only set runs on Plan turns"}


class ScopeAdmitsPlanSession(Session):
    def _plan_admits(self, reg: Registration) -> bool:
        scoped = reg.owner_user_id is not None or reg.project_id is not None or reg.platform is not None
        return scoped or super()._plan_admits(reg)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ScopeAdmitsPlanSession)
