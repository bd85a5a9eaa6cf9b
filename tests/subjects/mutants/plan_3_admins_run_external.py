"""PLAN-3 broken: an administrator's Plan turn runs an external tool the plugin declared read-only (by
either form); other users' Plan turns never run external tools."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-3"


class AdminExternalSession(Session):
    def _stage_plan(self, gate: Any) -> CallOutcome | None:
        if gate.reg.external and gate.reg.read_only and self.current_identity().admin:
            return None
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(AdminExternalSession)
