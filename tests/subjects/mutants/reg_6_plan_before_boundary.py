"""REG-6 broken in the cell "the permission boundary first: before plan mode and before any hook":
plan-mode policy runs before the host permission boundary, so a call both refuse is refused by plan mode (and
a boundary-denied tool on a Plan turn is reported as plan-refused)."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class ReorderedSession(Session):
    STAGES = ("plan", "boundary", "grant", "hook", "validation")


def factory() -> ReferenceHostAdapter:
    return session_mutant(ReorderedSession)
