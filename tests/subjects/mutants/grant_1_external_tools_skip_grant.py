"""GRANT-1 broken: external tools skip the plugin grant and deny-list (their server is taken to decide)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "GRANT-1"


class ExternalUngrantedSession(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        if gate.reg.external:
            return None
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(ExternalUngrantedSession)
