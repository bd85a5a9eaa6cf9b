"""RO-3 broken: a plugin's exact read-only claim on a core tool it does not own (``Write``) is honoured
where read-only sub-agents are built: the session's catalog still says the tool is not read-only, but a
read-only child receives it and may call it. The claim classified a tool the plugin does not own."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-3"


def _claimed_core(session: Session) -> set[str]:
    registry = session.host.registry
    claimed: set[str] = set()
    for plugin in registry.plugins():
        manifest = registry.manifest(plugin)
        if manifest is not None:
            claimed |= set(manifest.exact_read_only)
    return {name for name in claimed if (reg := registry.get(name)) is not None and reg.plugin == CORE_PLUGIN}


class ClaimHonouringChild(Session):
    def compose(self) -> Composition:
        if not self.restrictions.delegated_read_only:
            return super().compose()
        claimed = _claimed_core(self)
        registrations = [replace(reg, read_only=True) if reg.name in claimed else reg for reg in self.host.registry]
        return compose_session(registrations, self.view())

    def _lookup(self, name: str) -> Registration | None:
        found = super()._lookup(name)
        if found is None and self.restrictions.delegated_read_only and name in _claimed_core(self):
            return self.host.registry.get(name)
        return found


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ClaimHonouringChild)
