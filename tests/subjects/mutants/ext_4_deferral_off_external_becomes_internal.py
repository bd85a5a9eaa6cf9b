"""EXT-4, broken: in a session with deferral switched off, a deferred external tool is classified
internal.

A manifest's ``deferLoading`` tools go into this host's deferral index, which keeps each tool's name,
schema and owner but not its origin. When a session switches deferral off (``deferral.enabled:
false``), the host offers those tools straight from the index instead of loading them through the
registry, so their metadata falls back to the defaults and a deferred external tool comes out as
internal: ``origin: internal`` in the catalog, an advertised schema that gains ``reason`` and no
external caps, and calls that the host validates and strips as it does an internal tool's. With
deferral on (deferred, loaded through ToolSearch or overridden by an administrator) and for
never-deferred external tools, origin is the reference's.

Cell of the sentence: "Origin classification is independent of deferral", for the session-level
switch that turns deferral off (the tool is deferred by its manifest but never deferred in this
session), on every surface of that session.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._calls_support import RegistrationSeenSession
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "EXT-4"


class DeferralIndexSession(RegistrationSeenSession):
    def seen(self, reg: Registration) -> Registration:
        if reg.external and reg.deferred and not self.spec.deferral_enabled:
            return replace(reg, external=False)  # offered from the deferral index: origin defaulted
        return reg


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(DeferralIndexSession)
