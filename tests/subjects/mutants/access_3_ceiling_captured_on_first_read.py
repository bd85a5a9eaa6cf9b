"""Breaks ACCESS-3: the ceiling is captured lazily, at the session's first access read.

Cell: a grant that lands between opening the session and its first ``currentAccess()``. The broken
host does not capture the ceiling when the session opens; it captures it from the live policy the
first time the session's access is evaluated (a lazy "first use" cache). A grant made after the
session opened but before anything read its access widens the session for good: admin granted in
that window shows as ``admin: true``, a Project granted then is in ``projectIds``. Once captured,
the ceiling holds as in the reference host.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, Ceiling
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-3"
ALSO = {"ACCESS-1": "the ceiling is not what the account had at open"}


class LazyCeilingSession(Session):
    def current_access(self) -> AccessDescriptor:
        if not self.__dict__.get("_ceiling_captured"):
            self.__dict__["_ceiling_captured"] = True
            if self.parent is None:  # a child shares its parent's ceiling as in the reference host
                live = self.host.policies.evaluate(self.account)
                self.ceiling = Ceiling(admin=live.admin, project_ids=live.project_ids)
        return super().current_access()


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=LazyCeilingSession)
