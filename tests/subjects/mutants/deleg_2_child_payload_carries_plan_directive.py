"""Breaks DELEG-2: a child of a Plan turn receives the owner-chat mode directive in its provider payload.

Cell: "receives no owner-chat mode directive", on the provider-payload path. The broken host
reports the child's ``modeDirective`` as null (the child's turn is Build), but builds the provider
request's ``instructions`` from the access flag ``planMode`` rather than from the turn's own mode,
so every delegated descendant of a Plan turn is sent the Plan directive meant for the owner's chat.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import PLAN_DIRECTIVE, Composition
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-2"


class PlanModeInstructionsSession(Session):
    def compose(self) -> Composition:
        composition = super().compose()
        if self.restrictions.plan_mode and "instructions" not in composition.payload:
            composition.payload = {**composition.payload, "instructions": PLAN_DIRECTIVE}
        return composition


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanModeInstructionsSession)
