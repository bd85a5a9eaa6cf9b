"""RO-3 broken, in the cell "the claim comes first, the owner registers later": the host keeps every
installed plugin's exact ``readOnlyTools`` names as standing claims and, when a later plugin registers a
tool of that name, classifies it read-only (and admits it in plan mode) on the earlier plugin's word. A
claim made after the owner registered classifies nothing, as in the reference host, and the claimer's own
install reports its RO-3 finding as before.

The rule's sentence: "An exact read-only name keeps its own declaration and ownership checks: a plugin
cannot classify a tool it does not own" (seed: "Exact read-only names retain their own declaration and
ownership checks").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.manifest import Manifest
from reference_host.registry import InstallReport, RegistrationContext, Registry
from tests.subjects.mutants.base import host_mutant, plumbing

RULE = "RO-3"


class StandingClaimsRegistry(Registry):
    def merge(self, manifest: Manifest, context: RegistrationContext, report: InstallReport) -> None:
        super().merge(manifest, context, report)
        with self._lock:
            for name in report.accepted:
                reg = self._tools.get(name)
                if reg is None or reg.read_only or reg.plugin != manifest.name:
                    continue
                claimed = any(
                    name in other.exact_read_only for plugin, other in self._manifests.items() if plugin != reg.plugin
                )
                if claimed:
                    self._tools[name] = replace(reg, read_only=True, plan_admitted=not reg.external)


class StandingClaimsHost(Host):
    @plumbing
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.registry.__class__ = StandingClaimsRegistry


def factory() -> ReferenceHostAdapter:
    return host_mutant(StandingClaimsHost)
