"""REG-6 broken in the cell "plan-mode policy before the grant and before hooks": the plugin grant and deny-list
run before plan-mode policy, so a call both refuse is refused by the grant."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class ReorderedSession(Session):
    STAGES = ("boundary", "grant", "plan", "hook", "validation")


def factory() -> ReferenceHostAdapter:
    return session_mutant(ReorderedSession)
