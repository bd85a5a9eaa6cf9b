"""DELEG-1 broken: the descriptor ``currentAccess()`` hands out sets ``readOnly`` for a Plan turn only when
it carries a plan file, so a Plan turn in a host conversation (no Project, no plan file) reports
``readOnly: false``; the host's own sandbox and commands still enforce the restriction."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-1"


class ProjectPlanOnlySession(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        restrictions = self.restrictions
        if restrictions.plan_turn and restrictions.plan_file is None and not restrictions.delegated_read_only:
            return replace(access, read_only=False)
        return access

    def sandbox_access(self) -> SandboxAccess:
        access = Session.current_access(self)
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ProjectPlanOnlySession)
