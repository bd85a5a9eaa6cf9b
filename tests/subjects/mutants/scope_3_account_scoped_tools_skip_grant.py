"""SCOPE-3 broken, shown in GRANT-1's cell "scoped tools": a tool scoped to the calling account
(``ownerUserId``) is taken as the account's own, so it skips the plugin grant: an account with no grant for
the plugin still runs it. Its deny-list entries, and the grant of instance-wide tools, apply as before.
GRANT-1's check of that cell carries the fact as SCOPE-3's (a visible scoped tool still passes grants)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "SCOPE-3"


class OwnToolsUngranted(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        own = gate.reg.owner_user_id is not None and gate.reg.owner_user_id == self.account
        if own and gate.tool not in self.host.policies.evaluate(self.account).deny:
            return None
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(OwnToolsUngranted)
