"""MANIFEST-2 broken: an administrator's override does not un-defer the tool."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "MANIFEST-2"


class NoOverrideSession(Session):
    def view(self) -> SessionView:
        return replace(super().view(), admin_overrides=frozenset())


def factory() -> ReferenceHostAdapter:
    return session_mutant(NoOverrideSession)
