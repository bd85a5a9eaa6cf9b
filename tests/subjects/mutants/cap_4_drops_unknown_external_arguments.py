"""CAP-4 broken: arguments an external schema does not declare are silently dropped before the call."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "CAP-4"


class TidyingSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, tuple) and reg is not None and reg.external:
            params, hooks = gated
            known = (reg.tool.parameters.get("properties") or {}) if isinstance(reg.tool.parameters, dict) else {}
            return {k: v for k, v in params.items() if k in known}, hooks
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(TidyingSession)
