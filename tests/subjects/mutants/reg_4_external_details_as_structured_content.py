"""REG-4 broken: an external tool's ``details`` reach the model as MCP-style ``structuredContent``
beside its content.

The cell: a successful call of an external tool (an MCP bridge's, ``mcp__``-named or not). Internal
tools' results reach the model as in the reference host; the host-side ``details`` are unchanged.

The sentence broken (RULES.md REG-4; seed): "`details` is host-only: what the model or the provider
payload receives of a result never carries it" / "a details object for host-only metadata".
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome
from tests.subjects.mutants._calls_support import OutcomeRewritingSession
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "REG-4"


class StructuredOutcome(CallOutcome):
    def model_result(self) -> dict[str, Any]:
        result = super().model_result()
        if self.details:
            result["structuredContent"] = dict(self.details)
        return result


class StructuredContentSession(OutcomeRewritingSession):
    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        if reg.external and not outcome.is_error:
            outcome.__class__ = StructuredOutcome
        return outcome


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(StructuredContentSession)
