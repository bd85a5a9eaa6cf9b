"""REG-6 broken: a queued host Write/Edit skips the applicable hooks; a direct call still meets them.

The cell: a host mutation queued through the mutation queue (``queue_call``), whose pre-handler stages
run when it is queued. The boundary, plan policy, grant and validation stages run as in the reference
host; the hook stage is left out, so a hook that denies Write does not stop a queued Write.

The sentence broken (RULES.md REG-6; seed): "Calls pass the host permission boundary, plan-mode policy,
plugin grant checks and applicable hooks, in that order, before the handler runs; a refusal at any of
them means the handler never runs" / "Tool calls still pass through ... applicable hooks".
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "REG-6"


class QueueSkipsHooksSession(Session):
    _queueing = False

    def queue_call(self, tool: str, args: Any) -> str:
        self._queueing = True
        try:
            return super().queue_call(tool, args)
        finally:
            self._queueing = False

    def _stage_hook(self, gate: _Gate) -> CallOutcome | None:
        if self._queueing:
            return None
        return super()._stage_hook(gate)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(QueueSkipsHooksSession)
