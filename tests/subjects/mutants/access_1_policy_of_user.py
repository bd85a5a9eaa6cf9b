"""ACCESS-1 broken: currentAccess() evaluates the live policy of the session's user, not of its account,
so a user acting for an account sees another policy than the one the session's ceiling was taken from."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-1"


class UserPolicySession(Session):
    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.spec.identity.user_id)
        return evaluate_access(live, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=UserPolicySession)
