"""ACCESS-2 broken: access is what the session captured at open; a demotion or revocation only
shows in a new session."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-2"
ALSO = {
    "ACCESS-1": "frozen access is not the live intersection ACCESS-1 states",
    "ACCESS-5": "a handler re-reading frozen access sees no change",
}


class StaleSession(Session):
    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        frozen = replace(live, admin=self.ceiling.admin, project_ids=self.ceiling.project_ids)
        return evaluate_access(frozen, self.ceiling, self.restrictions, self.spec.identity.user_id)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=StaleSession)
