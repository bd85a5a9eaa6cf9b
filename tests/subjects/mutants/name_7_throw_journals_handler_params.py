"""NAME-7 broken in the cell "a handler that mutates, then throws": for a call whose handler throws,
the journal records the arguments as the handler left them ("what the failing call ran with", for
debugging). A handler that mutates its params and returns is journaled as the model sent it."""

from __future__ import annotations

import copy
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome
from tests.subjects.mutants._calls_support import OutcomeRewritingSession, session_mutant

RULE = "NAME-7"


class DebugJournalSession(OutcomeRewritingSession):
    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        if outcome.is_error:
            journal["arguments"] = copy.deepcopy(params)
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(DebugJournalSession)
