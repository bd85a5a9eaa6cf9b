"""SCOPE-1 broken, cell "combined scopes": a tool scoped by more than one of ``ownerUserId``,
``projectId`` and ``platform`` is offered where any one of them matches (the scopes are read as
alternatives), not only where all of them do. A tool with one scope behaves as on the reference host."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-1"
ALSO = {
    "RO-5": (
        "its catalogs hold tools with combined scopes, and the read-only set a child must get is the set in its scope"
    ),
}


class AnyScopeSession(RescopedSession):
    def rescope(self, reg: Registration) -> Registration:
        scopes = {
            "owner_user_id": (reg.owner_user_id, self.account),
            "project_id": (reg.project_id, self.spec.project_id),
            "platform": (reg.platform, self.spec.platform),
        }
        given = {field: pair for field, pair in scopes.items() if pair[0] is not None}
        if len(given) > 1 and any(wanted == actual for wanted, actual in given.values()):
            return replace(reg, owner_user_id=None, project_id=None, platform=None)
        return reg


def factory() -> ReferenceHostAdapter:
    return rescoped(AnyScopeSession)
