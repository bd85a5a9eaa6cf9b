"""ACCESS-8 broken, cell "empty roots": the file tools and the sandbox read an empty root list as "no
restriction configured" and fall back to the whole workspace, while currentAccess() reports the empty
roots. With no roots at all the file tools read and write nothing; any non-empty roots confine as on
the reference host."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import GUEST_ROOT
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-8"


class DefaultRootsSession(Session):
    def sandbox_access(self) -> SandboxAccess:
        access = super().sandbox_access()
        if access.roots:
            return access
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=(GUEST_ROOT,))


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=DefaultRootsSession)
