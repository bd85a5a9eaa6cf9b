"""ACCESS-4 broken: currentIdentity() takes admin/owner from the live policy alone, so it promotes a
turn that never had them."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import Identity
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-4"


class PromotingSession(Session):
    def current_identity(self) -> Identity:
        live = self.host.policies.evaluate(self.account)
        return replace(self.spec.identity, admin=live.admin, owner=live.owner)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PromotingSession)
