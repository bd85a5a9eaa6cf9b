"""EXT-4 broken: a deferred external tool loaded through ToolSearch is treated as internal."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "EXT-4"


class ForgetfulSession(Session):
    def _as_loaded(self, reg: Any) -> Any:
        if reg is not None and reg.external and reg.name in self.loaded:
            return replace(reg, external=False)
        return reg

    def _lookup(self, name: str) -> Any:
        return self._as_loaded(super()._lookup(name))

    def compose(self) -> Composition:
        return compose_session([self._as_loaded(reg) for reg in self.host.registry], self.view())


def factory() -> ReferenceHostAdapter:
    return session_mutant(ForgetfulSession)
