"""ERR-5 broken, cell "a thrown tagged error is a transport failure": the host wraps whatever a handler
throws in its own ToolExecutionError before classifying it, and reads the transport tag off the wrapper,
which never carries it: a thrown tagged error is not classified as a transport failure. It is still an
is_error result (ERR-1 holds), and untagged errors are not transport failures, as on the reference
host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-5"


class WrappedClassificationSession(Session):
    def _run_handler(self, reg: Registration, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        outcome.transport = False
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(WrappedClassificationSession)
