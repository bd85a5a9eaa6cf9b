"""DELEG-3 broken, in the cell "a child of a Plan turn, delegated without the read-only request": the host
builds a child's ``readOnly`` from the delegation request and the parent's *delegated* origin only, reading
a Plan restriction as the parent turn's own mode (a child starts in Build). So a Plan turn that delegates a
writable child hands it access with ``readOnly`` cleared (``planMode`` stays true), and the child runs as a
Build turn. A read-only delegation, or a child of a read-only child, keeps ``readOnly`` as before.

The rule's sentence: "Child access can never clear readOnly or planMode, whoever constructs it" (seed:
"currentAccess().readOnly carries both an admitted Plan restriction and the immutable delegated read-only
origin ... Plugins must never clear either restriction when constructing child access").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "DELEG-3"


class PlanRestrictionNotInheritedSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        if not read_only and not (requested or {}).get("readOnly") and not self.restrictions.delegated_read_only:
            child.restrictions = replace(child.restrictions, delegated_read_only=False)
        return child


def factory() -> ReferenceHostAdapter:
    return session_mutant(PlanRestrictionNotInheritedSession)
