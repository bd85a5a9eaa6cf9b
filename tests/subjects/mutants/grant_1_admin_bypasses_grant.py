"""GRANT-1 broken: an administrator skips the plugin grant and deny-list checks."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "GRANT-1"


class AdminSession(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        if self.current_identity().admin:
            return None
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(AdminSession)
