"""EXT-4 broken in the cell "an admin override un-deferring an external tool": a tool an
administrator's override keeps loaded is composed on the host's pinned-tools path, which builds
internal definitions, so an overridden deferred external tool loses its origin: it gains ``reason``,
is validated and never capped. Deferred external tools loaded through ToolSearch, and tools never
deferred, keep their origin."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._calls_support import RegistrationSeenSession, session_mutant

RULE = "EXT-4"


class PinnedSession(RegistrationSeenSession):
    def seen(self, reg: Registration) -> Registration:
        if reg.deferred and reg.external and reg.name in self.spec.admin_overrides:
            return replace(reg, external=False)
        return reg


def factory() -> ReferenceHostAdapter:
    return session_mutant(PinnedSession)
