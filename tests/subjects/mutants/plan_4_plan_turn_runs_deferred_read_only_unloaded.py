"""PLAN-4 broken: on a Plan turn a deferred read-only tool runs without being loaded.

Rule (PLAN-4): a read-only declaration does not keep a tool loaded: plan mode reaches a deferred
read-only tool through the loader like any other turn. Cell: the call path on a Plan turn, for a
plugin tool declared read-only by exact name and listed in ``deferLoading``. This host's Plan-turn
pipeline checks the plan policy first and, for a tool the read-only set admits, skips the deferral
stage ("plan mode may use every read-only tool"), so the model reaches the deferred tool without the
loader. The catalog still lists the tool deferred (the model tool list equals the Build list), every
later stage (boundary, plan, grant, hooks, validation) still runs, and Build turns and tools outside
the read-only set are the reference host's.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLAN-4"


class PlanSkipsDeferral(Session):
    def _gate(self, reg: Registration | None, tool: str, call_id: str, args: Any, journal: dict[str, Any]):  # noqa: ANN202
        if reg is None or not self.restrictions.plan_turn or reg.external or not self._plan_admits(reg):
            return super()._gate(reg, tool, call_id, args, journal)
        gate = _Gate(reg=reg, tool=tool, call_id=call_id, args=args, journal=journal)
        for stage in self.STAGES:  # the deferral check is left out for read-only tools on Plan turns
            refusal = getattr(self, f"_stage_{stage}")(gate)
            if refusal is not None:
                return refusal
        return gate.params, gate.hooks_ran


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanSkipsDeferral)
