"""ACCESS-5 broken: inside one call, currentAccess() returns what it read first, so a change during
the handler (or across its asynchronous wait) is not seen."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.context import active_call
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-5"


class CachingSession(Session):
    def current_access(self) -> AccessDescriptor:
        call = active_call()
        if call is None or call.session is not self:
            return super().current_access()
        cache = self.__dict__.setdefault("_per_call", {})
        if call.call_id not in cache:
            cache[call.call_id] = super().current_access()
        return cache[call.call_id]


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=CachingSession)
