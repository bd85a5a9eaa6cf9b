"""ACCESS-5 broken: the access descriptor is computed once when the session opens and reused."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-5"
ALSO = {
    "ACCESS-1": "access fixed at the first read is not the live intersection",
    "ACCESS-2": "a demotion after the first read is never seen",
    "ACCESS-6": "a queued mutation is rechecked against the stale access",
    "ACCESS-8": "file tools read the stale roots",
    "PLANFILE-5": "a child's access is its first read, not read at execution time, which PLANFILE-5 says of children",
}


class CapturedSession(Session):
    def current_access(self) -> AccessDescriptor:
        if "_captured" not in self.__dict__:
            self.__dict__["_captured"] = super().current_access()
        return self.__dict__["_captured"]


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=CapturedSession)
