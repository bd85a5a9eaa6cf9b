"""PLAN-2 broken, in the cell "a deferred internal plugin tool loaded through ToolSearch on a Plan turn":
the host treats a tool the model loaded with the loader during the turn as vetted and lets it past the
plan-mode policy, so a loaded tool that no plugin declared read-only runs on a Plan turn. Tools that were
never deferred, external tools (PLAN-3) and every Build turn behave as in the reference host.

The rule's sentence: "Plan mode executes only the read-only set: the core read-only tools, the host plan
defaults, and every plugin's exact provides.readOnlyTools names; any other call is refused at execution time
and its handler never runs" (seed: "A tool not declared there is refused at execution time"; "plan mode
reaches deferred read-only tools through the loader like any other turn": the loader changes what is
offered, not what runs).
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "PLAN-2"


class LoadedToolsAdmittedSession(Session):
    def _stage_plan(self, gate: _Gate) -> CallOutcome | None:
        if self.restrictions.plan_turn and not gate.reg.external and gate.tool in self.loaded:
            return None
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(LoadedToolsAdmittedSession)
