"""NAME-7 broken in the cell "a call refused by validation": the journal records a call refused by
the host's validation with its arguments cleaned to the tool's declared parameters (unknown ones left
out), "as the call should have been". Calls that pass are journaled as sent."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class CleaningSession(Session):
    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        outcome = super().call(tool, args, call_id, cwd=cwd)
        reg = self.host.registry.get(tool)
        if (outcome.refusal or {}).get("stage") == "validation" and reg is not None and isinstance(args, dict):
            declared = reg.tool.parameters.get("properties") or {}
            outcome.journal["arguments"] = {k: v for k, v in outcome.journal["arguments"].items() if k in declared}
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(CleaningSession)
