"""GRANT-1 broken in the cell "a deferred plugin tool once loaded through ToolSearch".

Sentence (seed ¶44): "Who may call a plugin tool is decided by the account's plugin grant and tool
deny-list, not by the tool." ¶43: "Tool calls still pass through the host permission boundary,
plan-mode policy, plugin grant checks, and applicable hooks." RULES.md GRANT-1: "a denied call is
refused and the handler never runs."

Cell: a plugin tool whose manifest defers it (``deferLoading``), loaded in the session by ToolSearch
(``select:`` or keywords), then called by an account without the plugin's grant, or with the tool on
its deny-list (at load time or revoked after it).

What the host does: it takes the model's ToolSearch selection as an entitlement and skips the grant
and deny-list stage for tools the session loaded. Tools that were never deferred, tools un-deferred by
an admin override or by deferral switched off, and every other stage are the reference host's.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "GRANT-1"


class LoadedToolsSkipGrantSession(Session):
    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        if gate.tool in self.loaded:
            return None
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=LoadedToolsSkipGrantSession)
