"""Breaks MANIFEST-1 (its Reading: an ``is_error`` result is always shown) for malformed results.

Cell: the ``is_error`` result the host makes when a handler *returns* a malformed result (REG-3),
as opposed to one that throws. The broken host checks the result's shape on its success branch and
keeps that branch's visibility, so the error result it builds is shown only when ``showOutput``
matches the tool, and hidden otherwise. Thrown errors and timeouts are still always shown.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome
from tests.subjects.mutants._access_support import mutant_host
from tests.subjects.mutants._calls_support import OutcomeRewritingSession

RULE = "MANIFEST-1"


class MalformedFollowsShowOutputSession(OutcomeRewritingSession):
    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        text = outcome.content[0].get("text", "") if outcome.content else ""
        if outcome.is_error and text.startswith(f"Tool {reg.name!r} returned a malformed result"):
            outcome.shown = reg.show_output
        return outcome


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=MalformedFollowsShowOutputSession)
