"""ACCESS-5 broken: the access descriptor is computed once when the session opens and reused."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.mutants._access_support import mutant_host

RULE = "ACCESS-5"
# Access fixed at the first read is stale for every check that changes the policy afterwards.
ALSO = ("ACCESS-1", "ACCESS-2", "ACCESS-6", "ACCESS-8")


class CapturedSession(Session):
    def current_access(self) -> AccessDescriptor:
        if "_captured" not in self.__dict__:
            self.__dict__["_captured"] = super().current_access()
        return self.__dict__["_captured"]


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=CapturedSession)
