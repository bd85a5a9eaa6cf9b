"""SCOPE-1 broken: ``ownerUserId`` is matched against the session's user instead of its account, so an
account-scoped tool is missing for a user who acts for that account (and shown to a user whose own id
happens to be the scope)."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "SCOPE-1"


class UserScopedSession(Session):
    def view(self) -> SessionView:
        return replace(super().view(), account=self.spec.identity.user_id)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(UserScopedSession)
