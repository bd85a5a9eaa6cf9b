"""ACCESS-4 broken: once the live policy has taken admin or owner away from a turn that captured it,
currentIdentity() answers an error instead of the identity without it. currentAccess() is untouched,
so the rules that judge access alone (ACCESS-1..3) must stay green."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import Identity
from reference_host.errors import HostError
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-4"
ALSO = {
    "ACCESS-5": "its checks re-read currentIdentity() after demoting the admin within a call, which this host refuses",
}


class RefusingSession(Session):
    def current_identity(self) -> Identity:
        captured = self.spec.identity
        live = self.host.policies.evaluate(self.account)
        if (captured.admin and not live.admin) or (captured.owner and not live.owner):
            raise HostError("the identity of this turn is not available since its authority changed")
        return super().current_identity()


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=RefusingSession)
