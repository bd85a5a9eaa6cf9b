"""PLANFILE-1 broken: only a managed Project conversation's Plan turn gets a ``planFile``; a local
Project conversation's own Plan turn gets none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.session import Session, SessionSpec
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-1"


class ManagedOnlyHost(Host):
    def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
        session = super().open_session(spec)
        if session.spec.conversation == "local":
            session.restrictions = replace(session.restrictions, plan_file=None)
        return session


def factory() -> ReferenceHostAdapter:
    return mutant_host(host_class=ManagedOnlyHost)
