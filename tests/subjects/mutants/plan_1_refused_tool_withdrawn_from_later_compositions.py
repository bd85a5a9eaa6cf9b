"""PLAN-1 broken, in the cell "later compositions of a Plan turn": the first composition of a Plan turn
offers every tool, but once plan mode has refused a call the host withdraws that tool from the session's
later compositions (catalog, model tool list and provider payload), so that the model stops retrying it.
A Build turn of the same session still offers the tool on every composition.

The rule's sentence: "Plan mode keeps every tool advertised: the model's tool list equals the Build list for
the same session" (seed: "Plan mode keeps every tool advertised and executes only the read-only set ... A
tool not declared there is refused at execution time").
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "PLAN-1"


class WithdrawingSession(Session):
    def _stage_plan(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_plan(gate)
        if refusal is not None:
            self.__dict__.setdefault("_withdrawn", set()).add(gate.tool)
        return refusal

    def compose(self) -> Composition:
        composition = super().compose()
        withdrawn = self.__dict__.get("_withdrawn")
        if not withdrawn:
            return composition
        composition.catalog = [e for e in composition.catalog if e["name"] not in withdrawn]
        composition.tools = [e for e in composition.tools if e["name"] not in withdrawn]
        composition.payload = {
            **composition.payload,
            "tools": [e for e in composition.payload["tools"] if e["name"] not in withdrawn],
        }
        return composition


def factory() -> ReferenceHostAdapter:
    return session_mutant(WithdrawingSession)
