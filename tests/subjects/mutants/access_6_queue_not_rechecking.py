"""ACCESS-6 broken: a queued Write/Edit runs under the access read when it was queued, so a
revocation between queueing and running does not refuse it."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-6"


class StaleQueueSession(Session):
    def queue_call(self, tool: str, args: Any) -> str:
        frozen = Session.sandbox_access(self)
        self.sandbox_access = lambda: frozen  # type: ignore[method-assign]
        try:
            return super().queue_call(tool, args)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=StaleQueueSession)
