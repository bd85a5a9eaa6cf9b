"""ACCESS-1 broken: currentAccess() is the live policy alone; the captured ceiling is never applied."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, Ceiling, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-1"
ALSO = {
    "ACCESS-3": "without the ceiling a later grant shows up in access, which ACCESS-3 forbids",
}


class NoCeilingSession(Session):
    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        unbounded = Ceiling(admin=True, project_ids=live.project_ids)
        access = evaluate_access(live, unbounded, self.restrictions, self.spec.identity.user_id)
        # The plan file still goes with a revoked Project, as the reference host decides it: only the ceiling is lost.
        kept = evaluate_access(live, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id)
        return replace(access, plan_file=kept.plan_file)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=NoCeilingSession)
