"""ACCESS-4 broken: currentIdentity() keeps the admin flag it captured after live authority is revoked
(owner is dropped as it should be)."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import Identity
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-4"
ALSO = {
    "ACCESS-5": "a handler re-reading identity after the revocation still sees admin",
}


class StickyAdminSession(Session):
    def current_identity(self) -> Identity:
        return replace(super().current_identity(), admin=self.spec.identity.admin)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=StickyAdminSession)
