"""PLANFILE-6, broken: a read-only sub-agent is not offered command execution at all.

This host gives a delegated read-only child exactly the tools classified read-only (the core
read-only set and plugins' read-only declarations) and forgets the one exception the seam makes for
command execution: Bash is not classified read-only, so it is dropped from the child's model tool
list, catalog and call lookup (a call to it is an unknown tool), as if running a command needed the
writable environment the child does not have. Plan turns keep Bash under the non-destructive
boundary as the reference does, and Build children (not read-only) get it unrestricted.

Cell of the sentence: "Command execution follows the core non-destructive boundary, read-only
children included, and needs no writable environment descriptor", for the read-only child's
offer of command execution (what it is given), rather than the boundary a command then meets.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLANFILE-6"


class ReadOnlySetOnlySession(Session):
    def _withheld(self, reg: Registration) -> bool:
        return self.restrictions.delegated_read_only and reg.plugin == CORE_PLUGIN and not reg.read_only

    def compose(self) -> Composition:
        return compose_session([reg for reg in self.host.registry if not self._withheld(reg)], self.view())

    def _lookup(self, name: str) -> Registration | None:
        reg = super()._lookup(name)
        return None if reg is not None and self._withheld(reg) else reg


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ReadOnlySetOnlySession)
