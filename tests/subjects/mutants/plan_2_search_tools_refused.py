"""PLAN-2 broken: plan mode refuses the core search tools (Glob, Grep, Search), as if only Read and
ListDir of the core tools were read-only; the read-only set is smaller than the rule names."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-2"


class NarrowPlanSession(Session):
    def _plan_admits(self, reg: Any) -> bool:
        if reg.name in ("Glob", "Grep", "Search"):
            return False
        return super()._plan_admits(reg)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(NarrowPlanSession)
