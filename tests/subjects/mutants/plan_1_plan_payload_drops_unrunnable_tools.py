"""PLAN-1 broken, in the cell "the provider payload of a Plan turn": the host's model tool list on a Plan
turn still equals the Build list, but the request it sends the provider carries only the tools plan mode
would run (the core read-only tools, the host plan defaults and the plugins' exact read-only names, never an
external tool), to save the input tokens of tools the turn cannot use. The model is therefore sent a smaller
list on a Plan turn than on a Build turn of the same session.

The rule's sentence: "Plan mode keeps every tool advertised: the model's tool list equals the Build list for
the same session" (seed: "Plan mode keeps every tool advertised and executes only the read-only set").
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "PLAN-1"


class PlanPayloadSession(Session):
    def compose(self) -> Composition:
        composition = super().compose()
        if not self.restrictions.plan_turn:
            return composition
        registry = self.host.registry

        def runs(entry: dict[str, Any]) -> bool:
            reg = registry.get(entry["name"])
            return reg is not None and not reg.external and self._plan_admits(reg)

        composition.payload = {
            **composition.payload,
            "tools": [entry for entry in composition.payload["tools"] if runs(entry)],
        }
        return composition


def factory() -> ReferenceHostAdapter:
    return session_mutant(PlanPayloadSession)
