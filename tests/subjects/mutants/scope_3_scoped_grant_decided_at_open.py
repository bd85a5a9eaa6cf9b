"""SCOPE-3, broken: a scoped tool's grant and deny-list are decided when the session opens, together
with its scope, and not read again when it is called.

This host resolves a scoped contribution's visibility once, when the session opens, and folds the
account's plugin grant and tool deny-list into that decision ("the account may see and use this
scoped tool"). The call pipeline then trusts the open-time decision for scoped tools: a grant revoked
or a deny-list entry added while the session runs still refuses every unscoped tool at once, but a
visible ``ownerUserId``/``projectId``/``platform``-scoped tool keeps running until the conversation
opens a new session. Everything else in the pipeline (boundary, plan policy, hooks, validation) is as
the reference runs it.

Cell of the sentence: "a visible scoped tool still passes grants, deny-list and policy" at
execution time, for a scoped tool whose account loses the grant (or gains a deny entry) after the
session opened; a policy already in force at open is applied correctly.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccountPolicy
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "SCOPE-3"
ALSO = {"GRANT-1": "a revoked grant or deny entry no longer refuses a scoped plugin tool mid-session"}


class OpenTimeScopeAuthorization(Session):
    def opened_policy(self) -> AccountPolicy:
        session: Session = self
        while session.parent is not None and "_opened_policy" not in session.__dict__:
            session = session.parent
        return session.__dict__.get("_opened_policy") or self.host.policies.evaluate(self.account)

    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        reg, tool = gate.reg, gate.tool
        scoped = reg.owner_user_id is not None or reg.project_id is not None or reg.platform is not None
        if not scoped:
            return super()._stage_grant(gate)
        decided = self.opened_policy()
        if reg.plugin != CORE_PLUGIN and not decided.grants_plugin(reg.plugin):
            return self._refused(
                tool,
                gate.call_id,
                gate.journal,
                "grant",
                "GRANT-1",
                f"This account has no grant for plugin {reg.plugin!r}, so {tool!r} cannot run.",
            )
        if tool in decided.deny:
            return self._refused(
                tool, gate.call_id, gate.journal, "grant", "GRANT-1", f"Tool {tool!r} is on this account's deny-list."
            )
        return None


def _decide_at_open(host, session: Session) -> None:
    session.__dict__["_opened_policy"] = host.policies.evaluate(session.account)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(OpenTimeScopeAuthorization, on_open=_decide_at_open)
