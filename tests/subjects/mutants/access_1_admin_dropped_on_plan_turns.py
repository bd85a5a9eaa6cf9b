"""ACCESS-1 broken: on a Plan turn ``currentAccess().admin`` is false although the live policy and the
session's captured ceiling both grant admin.

Cell: a Plan turn (host or Project conversation), read by the adapter and by plugin code alike; Build
turns and ``projectIds`` are untouched, and nothing is ever widened (ACCESS-3) or kept after a
demotion (ACCESS-2). The host conflates the turn's read-only restriction with the account's admin
scope. Sentence (seed ¶42; RULES.md ACCESS-1): "currentAccess().admin and projectIds are the live
effective policy scope, intersected with the session's captured ceiling."
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-1"


class PlanTurnNotAdminSession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        if self.restrictions.plan_turn:
            return replace(access, admin=False)
        return access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanTurnNotAdminSession)
