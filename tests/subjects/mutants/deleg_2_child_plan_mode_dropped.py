"""DELEG-2 broken: a child of a Plan turn starts with planMode false, so further delegation loses it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-2"
ALSO = {
    "DELEG-3": "dropping planMode is clearing a restriction",
}


class PlanDroppingSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        child.restrictions = replace(child.restrictions, inherited_plan_mode=False)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanDroppingSession)
