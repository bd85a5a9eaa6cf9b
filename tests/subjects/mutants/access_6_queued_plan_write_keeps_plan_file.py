"""ACCESS-6 broken: a queued Write/Edit rechecks the live roots inside the mutation queue, but runs with
the plan-file allowance of the moment it was queued, so a Project revocation between queueing and
running does not refuse a queued plan write.

Cell: a managed or local Project conversation's Plan turn whose Project is revoked while its plan
write is queued (docs/readings.md, "Readings fixed by the sandbox audit": "a plan write is refused
..., including a Write queued before the revocation, which is refused when its entry runs"). The
descriptor (``currentAccess()``) is right, direct writes are refused, and a roots narrowing still
refuses the queued entry. Sentence (seed ¶42; RULES.md ACCESS-6): "Queued host Write/Edit recheck the
anchored path inside the mutation queue": "a revocation between queueing and running refuses it."
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-6"


class QueuedPlanFileSession(Session):
    def queue_call(self, tool: str, args: Any) -> str:
        anchored = Session.sandbox_access(self).plan_file

        def live_roots_queued_plan() -> SandboxAccess:
            return replace(Session.sandbox_access(self), plan_file=anchored)

        self.sandbox_access = live_roots_queued_plan  # type: ignore[method-assign]
        try:
            return super().queue_call(tool, args)
        finally:
            del self.sandbox_access


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=QueuedPlanFileSession)
