"""REASON-4 broken: the host passes reason on to the handler instead of consuming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "REASON-4"


class LeakySession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, tuple) and isinstance(args, Mapping) and "reason" in args:
            params, hooks = gated
            return {**params, "reason": args["reason"]}, hooks
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(LeakySession)
