"""REG-6 broken in the cell "validation (Reading) after the hooks": the host validates an internal call's
arguments before the hooks run, so a hook never sees a breaking call and a call both refuse is refused by
validation."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class ReorderedSession(Session):
    STAGES = ("boundary", "plan", "grant", "validation", "hook")


def factory() -> ReferenceHostAdapter:
    return session_mutant(ReorderedSession)
