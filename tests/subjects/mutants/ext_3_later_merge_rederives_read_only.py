"""EXT-3 broken in the cell "later merges: more losers, then an unrelated external plugin": each merge
re-derives the read-only classification of the registry from every installed plugin's exact
``readOnlyTools`` over the names that plugin attempted to register, accepted or not. Right after a
collision the winner's metadata is right; the next install (any plugin) makes a loser's exact
read-only declaration classify the winner, and plan mode then runs it."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._collision_support import CollisionHost, Rejected

RULE = "EXT-3"


class RederivingHost(CollisionHost):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.attempted: list[Rejected] = []

    def after_collisions(self, rejected: list[Rejected]) -> None:
        for lost in self.attempted:  # every install re-derives from the earlier ones
            winner = self.registry.get(lost.name)
            if lost.exact_read_only and winner is not None and winner.plugin != "core":
                self.registry._tools[lost.name] = replace(winner, read_only=True, plan_admitted=not winner.external)
        self.attempted.extend(rejected)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=RederivingHost)
