"""Breaks GRANT-1: an account whose plugin grants are all revoked may call every plugin tool.

Cell: the account's plugin grant when it is *empty* (``pluginGrants: []``). The broken host reads
an empty grant list as "no restriction configured" and lets every plugin tool through, the way an
unset allow-list often means "allow all"; a non-empty list (with or without ``"*"``) and the
deny-list work as in the reference host. So a call the account holds no grant for runs its handler.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "GRANT-1"


class EmptyGrantsAllowAllSession(Session):
    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        live = self.host.policies.evaluate(self.account)
        if gate.reg.plugin != CORE_PLUGIN and not live.plugin_grants:
            if gate.tool in live.deny:
                return self._refused(
                    gate.tool,
                    gate.call_id,
                    gate.journal,
                    "grant",
                    "GRANT-1",
                    f"Tool {gate.tool!r} is on this account's deny-list.",
                )
            return None  # no grants configured: treated as unrestricted
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=EmptyGrantsAllowAllSession)
