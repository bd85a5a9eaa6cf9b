"""ERR-1 broken, cell "an external tool": the host passes an external tool's failure on as that tool's
answer (an MCP server's error text is what the server said), so a handler of an external tool that
throws yields a text result without ``is_error``. A handler that throws yields a result flagged
``is_error``, external tools included. Internal tools' throws are flagged as on the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-1"


class ExternalAnswerSession(Session):
    def _run_handler(self, reg: Registration, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if reg.external and outcome.is_error:
            outcome.is_error = False
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(ExternalAnswerSession)
