"""PLAN-3 broken, in the cell "external, deferred, after loading": the plan-mode policy takes a read-only
tool the model loaded through ToolSearch on this turn as chosen for the plan, so a deferred external tool
classified read-only runs on a Plan turn once loaded. Before loading it is refused (deferred), and an
external tool that was never deferred is refused as before."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-3"


class LoadedToolsPlanPolicy(Session):
    def _stage_plan(self, gate: Any) -> Any:
        reg = gate.reg
        if self.restrictions.plan_turn and reg.deferred and reg.read_only and gate.tool in self.loaded:
            return None  # the later stages run as on a Build turn
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(LoadedToolsPlanPolicy)
