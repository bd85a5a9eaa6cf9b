"""NAME-7 broken: the journal keeps the model's arguments object and the handler gets a shallow
copy of it, so top-level changes stay out of the journal but nested in-place ones get in."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class ShallowSession(Session):
    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        call_id = call_id or f"{self.id}-c{next(self._call_ids)}"
        journal = {"callId": call_id, "tool": tool, "arguments": args}
        self.journal.append(journal)
        reg = self._lookup(tool)
        gated = self._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome):
            return gated
        params, hooks_ran = gated
        shallow = {key: args[key] for key in params}
        assert reg is not None
        return self._run_handler(reg, call_id, shallow, journal, hooks_ran, cwd)


def factory() -> ReferenceHostAdapter:
    return session_mutant(ShallowSession)
