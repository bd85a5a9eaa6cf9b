"""PLANFILE-5 broken, in the cell "a Build turn's child asking for a planFile": the host refuses to forward
a Plan turn's own allowance to its children, but constructs the ``planFile`` a child's request names when
the parent has none to forward (a Build turn's child), so that read-only child reports the plan path and
its sandbox admits a write there. A Plan turn's children get no plan file, as in the reference host."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-5"
ALSO = {
    "PLANFILE-1": "the planFile constructed for the child is present on a delegated read-only origin, "
    "where PLANFILE-1 wants none"
}


class ConstructingSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        asked = (requested or {}).get("planFile")
        if isinstance(asked, str) and asked and self.restrictions.plan_file is None and not self.restrictions.plan_mode:
            child.restrictions = replace(child.restrictions, plan_file=asked)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ConstructingSession)
