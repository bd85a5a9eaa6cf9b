"""ERR-1 broken, cell "a read-only tool on a Plan turn": on a Plan turn the host reports a failing
read-only tool as an observation for the plan ("the tool failed: ...") in a plain text result, not
flagged ``is_error``, so the investigation goes on. A handler that throws yields a result flagged
``is_error`` on every turn. Build turns flag throws as on the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "ERR-1"


class PlanObservationSession(Session):
    def _run_handler(self, reg: Registration, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if self.restrictions.plan_turn and outcome.is_error:
            outcome.is_error = False
            outcome.content = [{"type": "text", "text": "The tool failed: " + outcome.content[0]["text"]}]
        return outcome


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(PlanObservationSession)
