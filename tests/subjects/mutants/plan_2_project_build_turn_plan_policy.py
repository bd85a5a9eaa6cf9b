"""PLAN-2 broken, in the cell "Build turn (runs everything)": the plan-mode policy reads the Project's
planning state rather than the turn's own mode, so on a Build turn of a managed or local Project
conversation a plugin tool outside the read-only set is refused at the plan stage as on a Plan turn. Host
conversations' Build turns, and core tools everywhere, run as in the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-2"


class ProjectModePlanPolicy(Session):
    def _stage_plan(self, gate: Any) -> CallOutcome | None:
        reg = gate.reg
        project_build = not self.restrictions.plan_turn and self.spec.conversation in ("managed", "local")
        if project_build and reg.plugin != CORE_PLUGIN and (reg.external or not self._plan_admits(reg)):
            return self._refused(
                gate.tool,
                gate.call_id,
                gate.journal,
                "plan",
                "PLAN-2",
                f"Plan mode runs only read-only tools; {gate.tool!r} is not in the read-only set.",
            )
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ProjectModePlanPolicy)
