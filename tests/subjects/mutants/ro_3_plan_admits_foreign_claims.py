"""RO-3 broken, in the cell "Plan turn: a foreign claim admits nothing": the plan-mode policy reads the
installed manifests' exact ``readOnlyTools`` names instead of the registry's classification, so a tool
another plugin claims runs on a Plan turn. The catalog still reports it not read-only and read-only
children still do not receive it: only the Plan turn honours the foreign claim."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-3"
ALSO = {
    "EXT-3": "a collision's loser claims by exact name a tool it does not own: its claim admitting that tool on a "
    "Plan turn is the read-only classification a rejected collision must not contribute"
}


class ManifestReadingPlanPolicy(Session):
    def _plan_admits(self, reg: Registration) -> bool:
        if super()._plan_admits(reg):
            return True
        registry = self.host.registry
        for plugin in registry.plugins():
            manifest = registry.manifest(plugin)
            if manifest is not None and reg.name in manifest.exact_read_only and not reg.external:
                return True
        return False


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ManifestReadingPlanPolicy)
