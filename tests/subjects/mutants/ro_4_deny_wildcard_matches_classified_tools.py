"""RO-4 broken, in the cell "the account's wildcard grammar: an mcp__* deny entry unchanged": the host reuses
the manifest's ``mcp__*`` expansion for the account's deny-list, so a deny entry ``mcp__*`` refuses the
external tools a plugin classified read-only by the wildcard, while an undeclared twin is matched by the
account's own grammar (exact names) and runs. The declaration changed what the account's wildcard means."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "RO-4"


class ExpandingDenyList(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        refusal = super()._stage_grant(gate)
        if refusal is not None:
            return refusal
        reg = gate.reg
        manifest = self.host.registry.manifest(reg.plugin)
        live = self.host.policies.evaluate(self.account)
        if "mcp__*" in live.deny and reg.external and manifest is not None and manifest.external_read_only:
            return self._refused(
                gate.tool,
                gate.call_id,
                gate.journal,
                "grant",
                "GRANT-1",
                f"Tool {gate.tool!r} is on this account's deny-list (mcp__*).",
            )
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(ExpandingDenyList)
