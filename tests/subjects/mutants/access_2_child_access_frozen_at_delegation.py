"""Breaks ACCESS-2: a demotion or Project revocation never reaches a delegated child.

Cell: the running session is a *delegated child* (not the session the owner opened). The broken
host evaluates the account's admin flag and Project scope once, when the parent delegates, and
hands the child that evaluation as its fixed live policy; the child's ``currentAccess()`` keeps
reading it. The opened session itself still follows the live policy, and the child's roots and
identity are still read live. So an account demoted (or a Project revoked) after delegation keeps
admin (or the Project) in the already running child until it is respawned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor, evaluate_access
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-2"
ALSO = {"ACCESS-1": "a child's admin and projectIds stop following the live policy"}


class ChildPolicyFrozenSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        live = self.host.policies.evaluate(self.account)
        # The child's "live" admin/Project facts, evaluated once at delegation.
        child.__dict__["_delegated_policy"] = (live.admin, live.project_ids)
        return child

    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        frozen = self.__dict__.get("_delegated_policy")
        if frozen is not None:
            live = replace(live, admin=frozen[0], project_ids=frozen[1])
        return evaluate_access(live, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ChildPolicyFrozenSession)
