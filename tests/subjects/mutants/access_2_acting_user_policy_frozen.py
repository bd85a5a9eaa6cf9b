"""ACCESS-2 broken, cell "a user acting for an account, demoted through the account": the host pushes
policy changes to the sessions of the user whose policy changed, keyed by the session's user. A session
whose user acts for another account is never told of a change to that account, so it keeps the
account's admin flag and Projects as they were when it opened: a demotion or revocation of the account
reaches only the account's own sessions. Sessions whose user is the account follow the live policy."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, AccountPolicy, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-2"
ALSO = {
    "ACCESS-1": (
        "its case reads an acting user's currentAccess() after the account's policy "
        "changed, which this host does not read live"
    ),
}


class PushedPolicySession(Session):
    at_open: AccountPolicy | None = None

    def current_access(self) -> AccessDescriptor:
        if self.spec.identity.user_id == self.account:
            return super().current_access()
        if self.at_open is None:
            self.at_open = self.host.policies.evaluate(self.account)
        return evaluate_access(
            self.at_open, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id
        )


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PushedPolicySession)
