"""DELEG-1 broken, in the cell "a Build turn: not readOnly": the descriptor ``currentAccess()`` hands out
takes a managed Project conversation for one the core manages and the agent may not change, so its Build
turn reports ``readOnly: true``. Host conversations' Build turns report ``readOnly: false``, and the host's
own sandbox still lets the managed Build turn write."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-1"


class ManagedReadOnlySession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        if self.spec.conversation == "managed" and not access.read_only:
            return replace(access, read_only=True)
        return access

    def sandbox_access(self) -> SandboxAccess:
        access = Session.current_access(self)
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ManagedReadOnlySession)
