"""RO-4 broken, in the cell "execution access: the account's tool deny-list": the host takes a plugin
tool's read-only declaration (either form, ``mcp__*`` or an exact name) as proof that it is harmless and
lets it past the account's deny-list; the plugin grant is still checked, and undeclared tools and core
tools meet the deny-list as before.

The rule's sentence: "Neither form grants execution access, changes the account's wildcard grammar, output
artifact selection, automatic image previews, or locked deferral" (seed: "Neither form grants tool execution
access ..."; "Who may call a plugin tool is decided by the account's plugin grant and tool deny-list").
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "RO-4"


class ReadOnlyUndeniableSession(Session):
    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        reg = gate.reg
        if (
            reg.read_only
            and reg.plugin != CORE_PLUGIN
            and self.host.policies.evaluate(self.account).grants_plugin(reg.plugin)
        ):
            return None  # the grant holds; the deny-list is skipped for a declared read-only tool
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return session_mutant(ReadOnlyUndeniableSession)
