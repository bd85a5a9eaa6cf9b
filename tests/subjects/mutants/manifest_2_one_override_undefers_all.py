"""MANIFEST-2 broken: an administrator override of one tool switches deferral off for the whole
session, so every other ``deferLoading`` tool is loaded too.

The cell: a session whose administrator overrides are non-empty but do not name the tool in question.
A session without overrides defers as the reference host does, and the overridden tool itself is loaded
as there.

The sentence broken (seed, RULES.md MANIFEST-2): "deferLoading defers matching tools even in a small
session, unless deferral is switched off or an administrator overrides the tool": the override is of
the tool, not of deferral.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "MANIFEST-2"


class AnyOverrideSession(Session):
    def view(self) -> SessionView:
        view = super().view()
        if view.admin_overrides:
            return replace(view, deferral_enabled=False)
        return view


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(AnyOverrideSession)
