"""PLAN-2 broken: an administrator's Plan turn runs every internal tool; plan mode binds other users only."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-2"


class AdminPlanSession(Session):
    def _stage_plan(self, gate: Any) -> CallOutcome | None:
        if self.current_identity().admin and not gate.reg.external:
            return None
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(AdminPlanSession)
