"""REG-6 broken: a call that breaks the schema is refused as an is_error result, not a text answer."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class ErrorRefusalSession(Session):
    def _stage_validation(self, gate: Any) -> CallOutcome | None:
        outcome = super()._stage_validation(gate)
        if outcome is not None:
            outcome.is_error = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(ErrorRefusalSession)
