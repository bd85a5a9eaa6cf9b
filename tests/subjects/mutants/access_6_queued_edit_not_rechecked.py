"""ACCESS-6 broken: a queued Edit runs under the access read when it was queued (a queued Write is
rechecked inside the queue as it should be), so a revocation between queueing and running does not
refuse the Edit."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-6"


class StaleEditQueueSession(Session):
    def queue_call(self, tool: str, args: Any) -> str:
        if tool != "Edit":
            return super().queue_call(tool, args)
        frozen = Session.sandbox_access(self)
        self.sandbox_access = lambda: frozen  # type: ignore[method-assign]
        try:
            return super().queue_call(tool, args)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=StaleEditQueueSession)
