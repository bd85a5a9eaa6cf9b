"""Breaks DELEG-2: planMode is kept for one delegation only, not for further delegation.

Cell: a grandchild (second delegation) of a Plan turn. The broken host computes a child's
``planMode`` from whether its parent is a Plan *turn* (``mode == "plan"``) instead of whether the
parent's access carries ``planMode``. A child of a Plan turn still gets ``planMode: true``, but
that child starts in Build, so when it delegates further its own child (the grandchild) gets
``planMode: false``: the imposed delegated origin does not keep planMode for further delegation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-2"
ALSO = {"DELEG-3": "the grandchild's access clears the planMode its parent carried"}


class PlanTurnOnlySession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        inherited = self.restrictions.plan_turn or bool((requested or {}).get("planMode"))
        child.restrictions = replace(child.restrictions, inherited_plan_mode=inherited)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanTurnOnlySession)
