"""EXT-3 broken in the cell "the winner keeps its own origin and classification": the host writes a
registration's normalized metadata (origin, read-only classification) into its metadata table before
the collision check, so a rejected registration overwrites the winner's: an external winner becomes
internal when the loser registered without ``external``, a read-only winner loses its classification
when the loser did not declare the name. The winner's tool itself stays in force."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._collision_support import CollisionHost, Rejected

RULE = "EXT-3"


class OverwritingHost(CollisionHost):
    def after_collisions(self, rejected: list[Rejected]) -> None:
        for lost in rejected:
            winner = self.registry.get(lost.name)
            if winner is None or winner.plugin == "core":
                continue
            read_only = lost.exact_read_only or lost.wildcard_read_only
            self.registry._tools[lost.name] = replace(
                winner,
                external=lost.external,
                read_only=read_only,
                plan_admitted=lost.exact_read_only and not lost.external,
            )


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=OverwritingHost)
