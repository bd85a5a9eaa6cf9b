"""NAME-7 broken in the cell "a handler that mutates, then throws": for a call whose handler throws,
the journal records the arguments as the handler left them ("what the failing call ran with", for
debugging). A handler that mutates its params and returns is journaled as the model sent it."""

from __future__ import annotations

import copy
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class DebugJournalSession(Session):
    def _run_handler(
        self,
        reg: Registration,
        call_id: str,
        params: dict[str, Any],
        journal: dict[str, Any],
        hooks_ran: list[str],
        cwd: str | None,
    ) -> CallOutcome:
        outcome = super()._run_handler(reg, call_id, params, journal, hooks_ran, cwd)
        if outcome.is_error:
            journal["arguments"] = copy.deepcopy(params)
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(DebugJournalSession)
