"""PLAN-3 broken: the plan-mode policy tells an external tool by its ``mcp__`` name, not by its origin, so
an external tool with a plain name (``external: true``, ``zqxLookup``) declared read-only by its exact
name runs on a Plan turn. (``mcp__``-named external tools are still refused.)"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-3"


class NameReadingPlanPolicy(Session):
    def _stage_plan(self, gate: Any) -> Any:
        reg = gate.reg
        if self.restrictions.plan_turn and reg.external and not reg.name.startswith("mcp__") and reg.read_only:
            return None  # the later stages run as on a Build turn
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(NameReadingPlanPolicy)
