"""Breaks GRANT-1: an explicit plugin grant overrides the tool deny-list.

Cell: the deny-list combined with a plugin granted *by name* (``pluginGrants: ["demo"]``, not
``"*"``). The broken host consults the deny-list only for tools reached through the wildcard grant;
a plugin the account was granted explicitly is taken as fully entitled, so a tool of it that is on
the account's deny-list still runs. With the wildcard grant, and for core tools, the deny-list
refuses as in the reference host.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "GRANT-1"


class ExplicitGrantBeatsDenySession(Session):
    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        live = self.host.policies.evaluate(self.account)
        if gate.reg.plugin != CORE_PLUGIN and gate.reg.plugin in live.plugin_grants:
            return None  # explicitly granted plugin: every tool of it is entitled
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ExplicitGrantBeatsDenySession)
