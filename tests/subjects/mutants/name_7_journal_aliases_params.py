"""NAME-7 broken: the journal records the very params object the handler receives (after the host
consumed reason), so whatever the handler does to it shows in the journal."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class AliasingSession(Session):
    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        call_id = call_id or f"{self.id}-c{next(self._call_ids)}"
        journal = {"callId": call_id, "tool": tool, "arguments": args}
        self.journal.append(journal)
        reg = self._lookup(tool)
        gated = self._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome):
            return gated
        params, hooks_ran = gated
        journal["arguments"] = params
        assert reg is not None
        return self._run_handler(reg, call_id, params, journal, hooks_ran, cwd)


def factory() -> ReferenceHostAdapter:
    return session_mutant(AliasingSession)
