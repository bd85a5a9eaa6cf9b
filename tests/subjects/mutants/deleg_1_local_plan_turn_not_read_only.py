"""DELEG-1 broken, in the cell "a Plan turn of a managed or local Project conversation": the descriptor
``currentAccess()`` hands out takes a local Project conversation (the user's own machine) as writable, so
its Plan turn reports ``readOnly: false``; managed Projects and host conversations report ``readOnly: true``
as before, and the host's own sandbox still enforces the Plan restriction."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-1"


class LocalWritableSession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        restrictions = self.restrictions
        if self.spec.conversation == "local" and restrictions.plan_turn and not restrictions.delegated_read_only:
            return replace(access, read_only=False)
        return access

    def sandbox_access(self) -> SandboxAccess:
        access = Session.current_access(self)
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=LocalWritableSession)
