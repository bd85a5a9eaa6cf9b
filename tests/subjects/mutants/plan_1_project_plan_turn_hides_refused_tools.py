"""PLAN-1 broken, in the cell "a managed Project conversation's Plan turn": in a managed or local Project
conversation the Plan turn is the planning step, so the host advertises there only what it will run: tools
outside the read-only set and the host plan defaults are left out of the tool list and the payload. A host
conversation's Plan turn keeps every tool, as the reference host does."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-1"


class ProjectPlanListsRunnable(Session):
    def compose(self) -> Composition:
        composition = super().compose()
        if not (self.restrictions.plan_turn and self.spec.conversation in ("managed", "local")):
            return composition
        registry = self.host.registry

        def runs(name: str) -> bool:
            reg = registry.get(name)
            return reg is not None and not reg.external and self._plan_admits(reg)

        return replace(
            composition,
            tools=[t for t in composition.tools if runs(t["name"])],
            payload={**composition.payload, "tools": [t for t in composition.payload["tools"] if runs(t["name"])]},
        )


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ProjectPlanListsRunnable)
