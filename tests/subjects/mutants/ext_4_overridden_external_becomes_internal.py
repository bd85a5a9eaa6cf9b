"""EXT-4 broken in the cell "an admin override un-deferring an external tool": a tool an
administrator's override keeps loaded is composed on the host's pinned-tools path, which builds
internal definitions, so an overridden deferred external tool loses its origin: it gains ``reason``,
is validated and never capped. Deferred external tools loaded through ToolSearch, and tools never
deferred, keep their origin."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "EXT-4"


class PinnedSession(Session):
    def _as_pinned(self, reg: Any) -> Any:
        if reg is not None and reg.deferred and reg.external and reg.name in self.spec.admin_overrides:
            return replace(reg, external=False)
        return reg

    def _lookup(self, name: str) -> Any:
        return self._as_pinned(super()._lookup(name))

    def compose(self) -> Composition:
        return compose_session([self._as_pinned(reg) for reg in self.host.registry], self.view())


def factory() -> ReferenceHostAdapter:
    return session_mutant(PinnedSession)
