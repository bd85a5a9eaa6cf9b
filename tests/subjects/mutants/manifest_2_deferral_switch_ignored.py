"""MANIFEST-2 broken, cell "deferral switched off for the session": the host defers every
``deferLoading`` tool whatever the session's deferral setting says, so a session with deferral switched
off still starts with those tools unloaded and refuses them until ToolSearch loads them. Administrator
overrides still un-defer as on the reference host."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "MANIFEST-2"


class AlwaysDeferSession(Session):
    def view(self) -> SessionView:
        return replace(super().view(), deferral_enabled=True)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(AlwaysDeferSession)
