"""EXT-4 broken: a deferred external tool loaded through ToolSearch is treated as internal."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._calls_support import RegistrationSeenSession, session_mutant

RULE = "EXT-4"


class ForgetfulSession(RegistrationSeenSession):
    def seen(self, reg: Registration) -> Registration:
        if reg.external and reg.name in self.loaded:
            return replace(reg, external=False)
        return reg


def factory() -> ReferenceHostAdapter:
    return session_mutant(ForgetfulSession)
