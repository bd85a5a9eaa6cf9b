"""RO-4 broken, in the automatic image preview cell: a tool declared read-only (either form) is taken
for an inspection tool whose images are no artifacts, so the host does not preview them: a successful
result's image items are replaced by a text note, where the same tool undeclared keeps its image. Its
output selection (``shown``), execution access and deferral are left as the reference host has them."""

from __future__ import annotations

from typing import Any

from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "RO-4"

NOTE = {"type": "text", "text": "[image not previewed: read-only tool]"}


class NoPreviewSession(Session):
    def _run_handler(self, reg: Any, *args: Any, **kwargs: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args, **kwargs)
        if reg.read_only and reg.plugin != CORE_PLUGIN and not outcome.is_error:
            outcome.content = [NOTE if item.get("type") == "image" else item for item in outcome.content]
        return outcome


def factory() -> Any:
    return sessions_mutant(NoPreviewSession)
