"""ERR-5 broken: every thrown error counts as a transport failure, tagged or not."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-5"


class LooseSession(Session):
    def _run_handler(self, reg: Any, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if outcome.is_error:
            outcome.transport = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(LooseSession)
