"""GRANT-1 broken, in the cell "the deny-list, and live changes to grant and deny-list": the plugin grant is
read live at each call, but the tool deny-list is the one the account had when the session opened, so a
tool denied mid-session still runs, and one allowed again mid-session stays refused."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "GRANT-1"


class CapturedDenyList(Session):
    captured_deny: frozenset[str] = frozenset()

    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        reg, tool = gate.reg, gate.tool
        live = self.host.policies.evaluate(self.account)
        if reg.plugin != CORE_PLUGIN and not live.grants_plugin(reg.plugin):
            return self._refused(
                tool,
                gate.call_id,
                gate.journal,
                "grant",
                "GRANT-1",
                f"This account has no grant for plugin {reg.plugin!r}, so {tool!r} cannot run.",
            )
        if tool in self.captured_deny:
            return self._refused(
                tool, gate.call_id, gate.journal, "grant", "GRANT-1", f"Tool {tool!r} is on this account's deny-list."
            )
        return None


def _capture(host: Host, session: Session) -> None:
    session.captured_deny = host.policies.evaluate(session.account).deny  # type: ignore[attr-defined]


def factory() -> ReferenceHostAdapter:
    return session_mutant(CapturedDenyList, _capture)
