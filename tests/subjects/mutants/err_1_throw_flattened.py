"""ERR-1 broken: a handler's throw is flattened into an ordinary text answer (no is_error flag)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-1"


class FlatteningSession(Session):
    def _run_handler(self, reg: Any, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        outcome.is_error = False
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(FlatteningSession)
