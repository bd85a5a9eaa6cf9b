"""ACCESS-6 broken in the cell "a second session drains the shared mutation queue".

Sentence (seed ¶42): "Queued host Write/Edit recheck the anchored path inside the mutation queue."
RULES.md ACCESS-6: "a revocation between queueing and running refuses it."

Cell: two sessions over one workspace (one mutation queue per directory), of different accounts.
Session A queues a Write; A's account loses the root between queueing and running; session B (whose
account still has the root) runs the queue (``run_queued``, or a direct Write/Edit, which drains it too).

What the host does: a queued entry rechecks its anchored path against the access of *the session that
drains the queue*, not of the session that queued it. When the queuing session drains its own queue
(the usual case) nothing differs from the reference host; the read-before-write key stays the
queuing session's.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-6"

_DRAINER: ContextVar[Session | None] = ContextVar("blind3a_drainer", default=None)


class DrainerAccessSession(Session):
    def queue_call(self, tool: str, args: Any) -> str:
        queuing = self

        def provider() -> SandboxAccess:
            drainer = _DRAINER.get() or queuing
            return Session.sandbox_access(drainer)

        self.sandbox_access = provider  # type: ignore[method-assign]
        try:
            return super().queue_call(tool, args)
        finally:
            del self.sandbox_access

    def run_queued(self):  # type: ignore[no-untyped-def]
        token = _DRAINER.set(self)
        try:
            return super().run_queued()
        finally:
            _DRAINER.reset(token)

    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None):  # type: ignore[no-untyped-def]
        token = _DRAINER.set(self)
        try:
            return super().call(tool, args, call_id, cwd=cwd)
        finally:
            _DRAINER.reset(token)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=DrainerAccessSession)
