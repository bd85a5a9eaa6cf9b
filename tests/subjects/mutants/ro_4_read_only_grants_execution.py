"""RO-4 broken: a read-only declaration lets the tool run without the plugin grant and past the deny-list."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import proceed, sessions_mutant

RULE = "RO-4"


class TrustingSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome) and (gated.refusal or {}).get("stage") == "grant" and reg.read_only:
            return proceed(self, reg, args)
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(TrustingSession)
