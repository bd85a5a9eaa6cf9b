"""NAME-7 broken in the cell "non-ASCII, empty and null values": the journal compacts what it records,
leaving out arguments whose value is null or the empty string ("nothing was sent"). The handler gets
every argument; the recorded arguments are not what the model sent."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class CompactingSession(Session):
    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        outcome = super().call(tool, args, call_id, cwd=cwd)
        recorded = outcome.journal.get("arguments")
        if isinstance(recorded, dict):
            outcome.journal["arguments"] = {k: v for k, v in recorded.items() if v is not None and v != ""}
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(CompactingSession)
