"""DELEG-2 broken: a child in plan mode receives the owner-chat mode directive, as if it were a Plan turn."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import PLAN_DIRECTIVE, SessionView
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-2"


class DirectedChildSession(Session):
    def view(self) -> SessionView:
        view = super().view()
        if self.parent is not None and self.restrictions.plan_mode:
            return replace(view, mode_directive=PLAN_DIRECTIVE)
        return view


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=DirectedChildSession)
