"""EXT-3 broken in the cell "a loser declaring readOnlyTools mcp__*": the host expands a plugin's
``mcp__*`` read-only wildcard over the external names the plugin *tried* to register and classifies
the registry's entries of those names, so an external registration rejected by a collision still
makes the winner read-only. A loser's exact read-only name and its origin contribute nothing, as
they should."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._collision_support import CollisionHost, Rejected

RULE = "EXT-3"


class WildcardLeakHost(CollisionHost):
    def after_collisions(self, rejected: list[Rejected]) -> None:
        for lost in rejected:
            winner = self.registry.get(lost.name)
            if lost.wildcard_read_only and winner is not None and winner.plugin != "core":
                self.registry._tools[lost.name] = replace(winner, read_only=True)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=WildcardLeakHost)
