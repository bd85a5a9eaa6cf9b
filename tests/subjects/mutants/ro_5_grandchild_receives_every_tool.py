"""RO-5 broken, in the cell "a grandchild keeps the set": the host composes a delegated child's tool list
from its own delegation request, so a child delegated with ``readOnly: false`` below a read-only child
receives, and may call, every tool, though its access stays read-only (DELEG-3 holds). A child delegated
read-only still receives exactly the read-only set."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, SessionView, compose_session, in_scope
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-5"


class RequestComposedChild(Session):
    asked_read_only = True

    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        child.asked_read_only = bool(read_only or (requested or {}).get("readOnly"))
        return child

    def _asked_view(self) -> SessionView:
        view = self.view()
        below_read_only_child = self.parent is not None and self.parent.restrictions.delegated_read_only
        if below_read_only_child and not self.asked_read_only:
            return replace(view, read_only_child=False)
        return view

    def compose(self) -> Composition:
        return compose_session(self.host.registry, self._asked_view())

    def _lookup(self, name: str) -> Registration | None:
        view = self._asked_view()
        if view.read_only_child:
            return super()._lookup(name)
        reg = self.host.registry.get(name)
        return reg if reg is not None and in_scope(reg, view) else None


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(RequestComposedChild)
