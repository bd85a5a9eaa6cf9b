"""GRANT-1 broken: the plugin grant and deny-list are read once when the session opens, so a live
policy change does not apply to the next call."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "GRANT-1"
ALSO = {
    "SCOPE-3": "its mid-session case revokes the grant after the session opened, which a captured grant never sees",
}


class CapturedGrantSession(Session):
    captured: Any = None

    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        policy = self.captured
        if gate.reg.plugin != CORE_PLUGIN and not policy.grants_plugin(gate.reg.plugin):
            return self._refused(gate.tool, gate.call_id, gate.journal, "grant", "GRANT-1", "no grant")
        if gate.tool in policy.deny:
            return self._refused(gate.tool, gate.call_id, gate.journal, "grant", "GRANT-1", "denied")
        return None


def _capture(host: Host, session: Session) -> None:
    session.captured = host.policies.evaluate(session.account)  # type: ignore[attr-defined]


def factory() -> ReferenceHostAdapter:
    return session_mutant(CapturedGrantSession, _capture)
