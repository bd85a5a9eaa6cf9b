"""ERR-1 broken: after a handler throws, the session refuses every later call."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "ERR-1"
ALSO = {
    "ERR-5": "their cases call again in the same session after a handler threw, and the session is gone",
    "MANIFEST-1": "their cases call again in the same session after a handler threw, and the session is gone",
}


class FragileSession(Session):
    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        if getattr(self, "_dead", False):
            journal = {"callId": call_id or "dead", "tool": tool, "arguments": args}
            return self._refused(tool, journal["callId"], journal, "session", "ERR-1",
                                 "The session ended after a tool failure.")
        outcome = super().call(tool, args, call_id, cwd=cwd)
        if outcome.is_error:
            self._dead = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(FragileSession)
