"""PLANFILE-5 broken, in the "access is read at execution time" cell: the host constructs a delegated
child's access once, when the child is made (the parent's access of that moment, with the child's own
restrictions and no planFile), and hands the child that descriptor ever after. A later policy change
(a revoked Project, narrowed roots, a demotion) never reaches the child, although it reaches the parent
at once. Nothing is forwarded: the child has no planFile, before or after."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-5"
ALSO = {"ACCESS-2": "a child whose whole access is fixed at delegation keeps a revoked admin and Projects"}


class ConstructingSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        constructed = Session.current_access(child)
        child.__class__ = ConstructedChild
        child.constructed = constructed  # type: ignore[attr-defined]
        return child


class ConstructedChild(ConstructingSession):
    """A child whose access is the descriptor constructed at delegation."""

    constructed: AccessDescriptor

    def current_access(self) -> AccessDescriptor:
        return self.constructed


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ConstructingSession)
