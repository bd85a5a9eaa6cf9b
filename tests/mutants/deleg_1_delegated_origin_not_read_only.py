"""DELEG-1 broken: currentAccess().readOnly reports only the Plan restriction, not a delegated read-only origin."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.session import Session
from tests.mutants._access_support import mutant_host

RULE = "DELEG-1"
# A child that is not read-only is let write (the PLANFILE-5 child rows, DELEG-3) and run
# destructive commands (PLANFILE-6).
ALSO = ("DELEG-3", "PLANFILE-5", "PLANFILE-6")


class ForgetfulSession(Session):
    def current_access(self) -> AccessDescriptor:
        return replace(super().current_access(), read_only=self.restrictions.plan_turn)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ForgetfulSession)
