"""PLANFILE-1 broken, in the cell "read-only children, grandchildren, a child asked for write access": the
descriptor ``currentAccess()`` hands out mints ``planFile`` from the conversation's facts (a managed or local
Project conversation in plan mode) rather than from the turn's own Plan restriction, so every delegated
child of a Project's Plan turn, which keeps ``planMode`` true, reports the parent's plan path. The sandbox
reads the turn's own restrictions and still admits no plan write to a child."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-1"
ALSO = {
    "PLANFILE-5": "a child's descriptor carrying the parent's planFile is the allowance forwarded to the child, "
    "as PLANFILE-5's checks read it"
}


def _root_plan_file(session: Session) -> str | None:
    while session.parent is not None:
        session = session.parent
    return session.restrictions.plan_file


class ConversationMintedPlanFile(Session):
    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        if self.parent is not None and access.plan_mode and self.spec.conversation in ("managed", "local"):
            return replace(access, plan_file=_root_plan_file(self))
        return access

    def sandbox_access(self) -> SandboxAccess:
        access = Session.current_access(self)
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ConversationMintedPlanFile)
