"""PLAN-3 broken, in the cell "external, declared by exact name, mcp__ name": the plan-mode policy refuses
external tools classified by the ``mcp__*`` wildcard but admits any tool named exactly in
``readOnlyTools``, external ones included (plan admission is "exact = admitted", the origin forgotten).
An external tool declared read-only by its exact name runs on a Plan turn."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-3"


def _exact_claim(session: Session, name: str) -> bool:
    registry = session.host.registry
    reg = registry.get(name)
    manifest = registry.manifest(reg.plugin) if reg is not None else None
    return manifest is not None and name in manifest.exact_read_only


class ExactExternalPlanPolicy(Session):
    def _stage_plan(self, gate: Any) -> Any:
        if self.restrictions.plan_turn and gate.reg.external and _exact_claim(self, gate.reg.name):
            return None  # the later stages run as on a Build turn
        return super()._stage_plan(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ExactExternalPlanPolicy)
