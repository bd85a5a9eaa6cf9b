"""PLAN-4 broken: on a Plan turn, deferred read-only tools are loaded up front instead of through the loader."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-4"


def preload(host: Host, session: Session) -> None:
    if session.restrictions.plan_turn:
        session.loaded.update(reg.name for reg in host.registry if reg.read_only and reg.deferred)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(Session, on_open=preload)
