"""PLAN-3 broken, in the cell "the instance owner calls a read-only-declared external tool on a Plan turn":
the host trusts the operator's own MCP servers, so for a caller whose live identity is the instance owner
an external tool declared read-only (by ``mcp__*`` or by its exact name) runs on a Plan turn. Any other
caller, administrators included, is refused as in the reference host, and undeclared tools stay refused
for the owner too (PLAN-2 holds).

The rule's sentence: "Plan mode never executes an external tool, whichever form declared it read-only"
(seed: "Plan mode admits exact read-only names but never an external tool, whichever form declared it";
docs/readings.md: plan mode binds every caller, the instance owner included).
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "PLAN-3"


class OwnerTrustsExternalSession(Session):
    def _stage_plan(self, gate: _Gate) -> CallOutcome | None:
        reg = gate.reg
        if self.restrictions.plan_turn and reg.external and reg.read_only and self.current_identity().owner:
            return None
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(OwnerTrustsExternalSession)
