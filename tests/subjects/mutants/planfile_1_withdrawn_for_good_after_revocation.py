"""PLANFILE-1 broken in the cell "a re-grant of the conversation's Project after its revocation".

Sentence (seed ¶41): "PluginAccessDescriptor.planFile?: string is a core-minted exact guest path,
present only on a managed or local Project conversation's own Plan turn." Reading (docs/readings.md,
sandbox audit, PLANFILE-1, ACCESS-5/6; docs/access-model.md §2): revoking the conversation's Project
withdraws its plan file; "A re-grant within the session's ceiling restores it."

Cell: a managed or local Project Plan turn; its account's Project is revoked (``projectIds`` without it)
and then granted again; the turn's ``currentAccess().planFile`` (adapter and plugin code) and the plan
write that rests on it.

What the host does: its Project-revocation handler strips the plan file from every running session of
that Project (eagerly, at ``set_policy``), so the turn has no ``planFile`` for good; a re-grant does not
bring it back. Before a revocation, and while the Project is revoked, it answers as the reference host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-1"


class StripsPlanFileOnRevocationHost(Host):
    def set_policy(self, account: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        answer = super().set_policy(account, changes)
        live = self.policies.evaluate(account)
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            project = session.spec.project_id
            if (
                session.account == account
                and session.restrictions.plan_file is not None
                and project is not None
                and project in session.ceiling.project_ids
                and project not in live.project_ids
            ):
                session.restrictions = replace(session.restrictions, plan_file=None)
        return answer


def factory() -> ReferenceHostAdapter:
    return mutant_host(host_class=StripsPlanFileOnRevocationHost)
