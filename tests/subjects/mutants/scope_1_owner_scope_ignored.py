"""SCOPE-1 broken, cell "the account (ownerUserId)": the host accepts ``ownerUserId`` but keeps it as
metadata only (who contributed the tool), so an account-scoped tool is instance-wide: every account's
sessions list it and can call it. ``projectId`` and ``platform`` still scope as the reference host."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-1"
ALSO = {
    "RO-5": "its catalogs hold account-scoped tools, and the read-only set a child must get is the set in its scope",
}


class OwnerBlindSession(RescopedSession):
    def rescope(self, reg: Registration) -> Registration:
        return replace(reg, owner_user_id=None) if reg.owner_user_id is not None else reg


def factory() -> ReferenceHostAdapter:
    return rescoped(OwnerBlindSession)
