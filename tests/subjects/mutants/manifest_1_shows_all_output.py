"""MANIFEST-1 broken: every successful output is shown, whatever showOutput says."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "MANIFEST-1"


class ShowAllSession(Session):
    def _run_handler(self, reg: Any, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        outcome.shown = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(ShowAllSession)
