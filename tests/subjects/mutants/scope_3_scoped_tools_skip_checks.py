"""SCOPE-3 broken: scoping is taken as authorization: a scoped tool visible in the session skips the
permission boundary, plan policy, grant, deny-list and hooks."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import proceed, sessions_mutant

RULE = "SCOPE-3"


class ScopeTrustingSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        scoped = reg is not None and any(v is not None for v in (reg.owner_user_id, reg.project_id, reg.platform))
        if scoped and isinstance(gated, CallOutcome) and (gated.refusal or {}).get("stage") in (
                "boundary", "plan", "grant", "hook"):
            return proceed(self, reg, args)
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ScopeTrustingSession)
