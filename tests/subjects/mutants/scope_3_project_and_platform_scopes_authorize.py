"""SCOPE-3 broken, in the Project and platform cells: a tool scoped by ``projectId`` or ``platform`` is
taken as authorized by its scope (the Project's members, the platform's visitors may call it), so once
it is visible it skips the permission boundary, plan policy, grant, deny-list and hooks. A tool scoped
to an account (``ownerUserId``) still passes every check, as an instance-wide tool does."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import proceed, sessions_mutant

RULE = "SCOPE-3"
ALSO = {
    "PLAN-3": "a Project- or platform-scoped external tool that skips the plan policy runs on a Plan turn",
}


class ScopeAuthorizesSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        by_project_or_platform = reg is not None and (reg.project_id is not None or reg.platform is not None)
        if (
            by_project_or_platform
            and isinstance(gated, CallOutcome)
            and (gated.refusal or {}).get("stage") in ("boundary", "plan", "grant", "hook")
        ):
            return proceed(self, reg, args)
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ScopeAuthorizesSession)
