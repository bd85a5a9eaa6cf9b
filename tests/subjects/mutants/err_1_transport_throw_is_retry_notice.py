"""ERR-1 broken, cell "a thrown tagged transport failure": the host reads a thrown transport failure as
"the tool is temporarily unreachable" and answers the model with a plain retry notice, not flagged
``is_error`` (it still records the failure as transport). A handler that throws yields a result flagged
``is_error``, whatever it threw. Untagged throws are flagged as on the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-1"


class RetryNoticeSession(Session):
    def _run_handler(self, reg: Registration, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if outcome.transport and outcome.is_error:
            outcome.is_error = False
            outcome.content = [{"type": "text", "text": f"{reg.name} is temporarily unreachable; try again later."}]
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(RetryNoticeSession)
