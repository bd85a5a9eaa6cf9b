"""REG-6 broken: hooks run before the plugin grant check (a hook sees calls the grant refuses)."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class HooksFirstSession(Session):
    STAGES = ("boundary", "plan", "hook", "grant", "validation")


def factory() -> ReferenceHostAdapter:
    return session_mutant(HooksFirstSession)
