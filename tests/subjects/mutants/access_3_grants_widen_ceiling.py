"""ACCESS-3 broken: every later grant raises the session's ceiling, so grants widen a running session."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, Ceiling
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-3"
ALSO = {
    "ACCESS-1": "a widened ceiling makes access wider than live policy intersected with the captured ceiling",
}


class WideningSession(Session):
    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        self.ceiling = Ceiling(self.ceiling.admin or live.admin, self.ceiling.project_ids | live.project_ids)
        return super().current_access()


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WideningSession)
