"""DELEG-3 broken: a delegation request with readOnly/planMode false clears the child's restrictions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-3"
ALSO = {
    "DELEG-2": "a cleared planMode is lost for further delegation",
    "PLANFILE-5": "a cleared readOnly lets the child write the plan path",
}


class ClearableSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        asked = requested or {}
        if asked.get("readOnly") is False:
            child.restrictions = replace(child.restrictions, delegated_read_only=False)
        if asked.get("planMode") is False:
            child.restrictions = replace(child.restrictions, inherited_plan_mode=False)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ClearableSession)
