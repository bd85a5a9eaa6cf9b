"""GRANT-1 broken: the plugin grant and deny-list are read from the policy of the session's user, not of
its account, so an account's missing grant does not stop a user acting for it."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "GRANT-1"


class UserGrantSession(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        live = self.host.policies.evaluate(self.spec.identity.user_id)
        if gate.reg.plugin != CORE_PLUGIN and not live.grants_plugin(gate.reg.plugin):
            return self._refused(gate.tool, gate.call_id, gate.journal, "grant", "GRANT-1", "no grant")
        if gate.tool in live.deny:
            return self._refused(gate.tool, gate.call_id, gate.journal, "grant", "GRANT-1", "denied")
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(UserGrantSession)
