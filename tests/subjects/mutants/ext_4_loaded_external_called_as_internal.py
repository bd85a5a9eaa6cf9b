"""EXT-4, broken: once the loader has loaded a deferred external tool, the call pipeline treats it as
internal.

When ToolSearch loads a deferred tool, this host records it in the session's loaded-tool table with
metadata rebuilt from the registration options' defaults, and ``external`` omitted normalizes to
false. Composition still reads the registry, so the catalog says ``origin: external`` and the
advertised definition is the capped, reason-free external one; but the call path reads the loaded
table: the host validates the loaded external tool's arguments against a reason-augmented schema and
strips ``reason`` from them, as it would an internal tool's. A non-deferred external tool, a
deferred one reached through an administrator override, and every internal tool are handled as the
reference handles them.

Cell of the sentence: "a deferred external tool is still external when it is loaded", on the call
path (how the host treats the loaded tool's arguments), after a load through the ToolSearch loader.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "EXT-4"
ALSO = {"CAP-4": "a loaded external tool's arguments are validated and stripped by the host"}


class LoadedTableSession(Session):
    def _lookup(self, name: str) -> Registration | None:
        reg = super()._lookup(name)
        if reg is not None and reg.external and reg.deferred and name in self.loaded:
            return replace(reg, external=False)  # the loaded-tool table's metadata: external defaulted
        return reg


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(LoadedTableSession)
