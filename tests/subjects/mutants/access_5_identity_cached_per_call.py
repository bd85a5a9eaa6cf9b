"""ACCESS-5 broken, cell "currentIdentity() read again within one call": inside one call,
currentIdentity() returns what it read first, so a revocation during the handler (or across its
asynchronous wait) still shows the owner and admin flags. currentAccess() is re-read as on the
reference host, and so is the identity between calls."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import Identity
from reference_host.context import active_call
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-5"


class CachingIdentitySession(Session):
    def current_identity(self) -> Identity:
        call = active_call()
        if call is None or call.session is not self:
            return super().current_identity()
        cache = self.__dict__.setdefault("_identity_per_call", {})
        if call.call_id not in cache:
            cache[call.call_id] = super().current_identity()
        return cache[call.call_id]


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=CachingIdentitySession)
