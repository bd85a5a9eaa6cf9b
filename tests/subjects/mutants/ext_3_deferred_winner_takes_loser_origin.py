"""EXT-3 broken: a deferred tool takes the origin of a registration that lost a name collision to it.

The cell: the accepted owner's tool is deferred (its manifest's ``deferLoading`` matches it), and a
later plugin's registration of the same name, with the other origin, is rejected. The host keeps its
loader's deferred tools by name from each ``registerTool`` call's options, so the rejected call's
``external`` replaces the accepted one's; the tool is then external (or internal) everywhere, in its
catalog entry and in what that origin causes (its owner's own read-only declarations classify it for
that origin), consistently. A tool that is not deferred keeps its owner's origin as in the reference
host.

The sentence broken (RULES.md EXT-3; seed): "Metadata (origin, read-only classification) follows the
accepted owner through registry merges; a registration rejected by a name collision contributes
neither origin nor read-only classification".
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._collision_support import CollisionHost, Rejected
from tests.subjects.mutants._composition_support import replace, rewrite_registry

RULE = "EXT-3"


class DeferredIndexHost(CollisionHost):
    def after_collisions(self, rejected: list[Rejected]) -> None:
        origins = {r.name: r.external for r in rejected}

        def take_loser_origin(reg: Registration) -> Registration | None:
            external = origins.get(reg.name)
            if external is None or not reg.deferred or reg.external == external:
                return None
            # The owner's own declarations classify the tool, but for the origin it wrongly took.
            manifest = self.registry.manifest(reg.plugin)
            exact = manifest is not None and reg.name in manifest.exact_read_only
            wildcard = manifest is not None and external and manifest.external_read_only
            return replace(reg, external=external, read_only=exact or wildcard, plan_admitted=exact and not external)

        rewrite_registry(self, take_loser_origin)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=DeferredIndexHost)
