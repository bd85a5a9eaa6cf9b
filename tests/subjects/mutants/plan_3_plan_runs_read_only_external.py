"""PLAN-3 broken: plan mode executes an external tool once it is declared read-only (by either form)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import proceed, sessions_mutant

RULE = "PLAN-3"


class TrustingSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome) and (gated.refusal or {}).get("stage") == "plan" and reg.external:
            if reg.read_only:
                return proceed(self, reg, args)
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(TrustingSession)
