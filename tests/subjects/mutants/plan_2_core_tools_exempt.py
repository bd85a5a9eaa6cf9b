"""PLAN-2 broken: plan-mode policy is applied to plugin tools only; every core tool runs on a Plan turn
(ShareFile, EditImage, WorkflowStart included), as if the host's own tools were all safe."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-2"


class CoreTrustingSession(Session):
    def _stage_plan(self, gate: Any) -> CallOutcome | None:
        if gate.reg.plugin == CORE_PLUGIN:
            return None
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(CoreTrustingSession)
