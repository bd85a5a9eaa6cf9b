"""ACCESS-1 broken the other way: access keeps only the first Project of live ∩ ceiling.

Never wider than either side (ACCESS-2 and ACCESS-3 hold), yet not the intersection the rule names.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-1"


class NarrowSession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        return replace(access, project_ids=access.project_ids[:1])


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=NarrowSession)
