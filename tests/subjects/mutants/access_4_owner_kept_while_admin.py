"""ACCESS-4 broken: ``currentIdentity()`` keeps a captured ``owner`` flag whose live owner authority was
revoked, as long as the account is still an administrator.

Cell: owner revoked while admin stays granted (live ``owner: false, admin: true``); an owner revoked
with admin also gone, and a revoked admin, are dropped as they should be, and nothing is promoted
(the flag is kept only where it was captured). The host reads operator authority as "owner or admin".
Sentence (seed ¶42; RULES.md ACCESS-4): "currentIdentity() also removes captured admin/owner
privilege when live host authority is revoked; it never promotes a turn."
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import Identity
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-4"


class AdminKeepsOwnerSession(Session):
    def current_identity(self) -> Identity:
        identity = super().current_identity()
        live = self.host.policies.evaluate(self.account)
        if self.spec.identity.owner and live.admin and not identity.owner:
            return replace(identity, owner=True)
        return identity


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=AdminKeepsOwnerSession)
