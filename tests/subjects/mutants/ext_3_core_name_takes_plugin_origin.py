"""EXT-3 broken in the cell "a plugin registering a core tool's name as external": core tools carry no
metadata record of their own in this host, so the first plugin registration of a core tool's name,
though rejected (a core tool is never replaced), writes its origin there: the core tool becomes
external (no ``reason``, capped, redacted, refused in Plan). Collisions between plugins are handled
right."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._collision_support import CollisionHost, Rejected

RULE = "EXT-3"


class CoreOriginHost(CollisionHost):
    def after_collisions(self, rejected: list[Rejected]) -> None:
        for lost in rejected:
            core = self.registry.get(lost.name)
            if core is not None and core.plugin == "core" and lost.external:
                self.registry._tools[lost.name] = replace(core, external=True)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=CoreOriginHost)
