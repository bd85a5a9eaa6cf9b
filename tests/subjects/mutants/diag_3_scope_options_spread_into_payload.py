"""Breaks DIAG-3: a scoped tool's registration options are spread into its provider payload entry.

Cell: the *scope* part of the registration metadata (``ownerUserId``, ``projectId``, ``platform``),
for scoped tools only. The broken host builds a scoped tool's function definition as
``{...definition, ...scopeOptions}``, so a Project-, account- or platform-scoped tool goes to the
provider with e.g. ``"projectId": "p1"`` beside its name and parameters. Unscoped tools, the model
tool list, the catalog and the diagnostics are the reference host's.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "DIAG-3"


class ScopeInPayload(RewriteTools):
    payload_only = True

    def rewrite(self, reg: Registration, entry: dict) -> dict:
        scope = {
            key: value
            for key, value in (
                ("ownerUserId", reg.owner_user_id),
                ("projectId", reg.project_id),
                ("platform", reg.platform),
            )
            if value is not None
        }
        return {**entry, **scope}


def factory() -> ReferenceHostAdapter:
    return ScopeInPayload()
