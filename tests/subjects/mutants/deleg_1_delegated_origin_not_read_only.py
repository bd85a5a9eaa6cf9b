"""DELEG-1 broken: currentAccess().readOnly reports only the Plan restriction, not a delegated read-only origin."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-1"
ALSO = {
    "DELEG-3": "a child that is not read-only has its restriction cleared",
    "PLANFILE-5": "a child that is not read-only is let write the plan path",
}


class ForgetfulSession(Session):
    def current_access(self) -> AccessDescriptor:
        return replace(super().current_access(), read_only=self.restrictions.plan_turn)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ForgetfulSession)
