"""MANIFEST-1 broken: showOutput decides for is_error results too, so a failure can be hidden."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "MANIFEST-1"


class HideErrorsSession(Session):
    def _run_handler(self, reg: Any, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if outcome.is_error:
            outcome.shown = reg.show_output
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(HideErrorsSession)
