"""REASON-4 broken on the second call only: the host consumes reason on a tool's first call in a
session, then (a per-session cache of the stripped schema gone stale) passes it on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "REASON-4"


class SecondCallSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        seen: set[str] = self.__dict__.setdefault("_called_once", set())
        first = tool not in seen
        seen.add(tool)
        if not first and isinstance(gated, tuple) and isinstance(args, Mapping) and "reason" in args:
            params, hooks = gated
            return {**params, "reason": args["reason"]}, hooks
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(SecondCallSession)
