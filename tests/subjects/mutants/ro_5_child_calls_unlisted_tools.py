"""RO-5 broken, in the cell "an undeclared plugin tool cannot be called by the child": a read-only child's
tool list holds exactly the read-only set, but the call lookup does not apply it, so a child that names an
undeclared tool runs it. What the child is offered is right; what it may run is not."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import in_scope
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-5"


class ListOnlyChild(Session):
    def _lookup(self, name: str) -> Registration | None:
        reg = self.host.registry.get(name)
        return reg if reg is not None and in_scope(reg, self.view()) else None


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ListOnlyChild)
