"""Breaks ACCESS-2: a Project revocation does not reach a running session.

Cell: "project revocation applies to a running session" (the Project half of the sentence; an
account demotion still applies). The broken host loads the account's Project memberships once, when
the session opens, and keeps serving that list for the session's lifetime, while it re-reads the
role (admin) live on every ``currentAccess()``. A revoked Project therefore stays in
``currentAccess().projectIds`` of every session (and delegated child) opened before the revocation,
until the conversation is respawned. The plan file's own withdrawal still asks the live Project
scope, so only ``projectIds`` is stale.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-2"
ALSO = {
    "ACCESS-1": "projectIds is no longer the live set intersected with the ceiling",
    "ACCESS-5": "a Project list loaded once at open is never re-read before an operation",
}


class ProjectsLoadedAtOpenSession(Session):
    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        fresh = evaluate_access(live, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id)
        # The Project list loaded at open (the captured set), never narrowed by a later revocation.
        return replace(fresh, project_ids=tuple(sorted(self.ceiling.project_ids)))


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ProjectsLoadedAtOpenSession)
