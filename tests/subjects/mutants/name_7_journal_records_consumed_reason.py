"""NAME-7 broken: the journal records the arguments the handler is given, after the host consumed the
model's ``reason``, instead of what the model sent.

The cell: an internal tool's call that carries the host's optional ``reason`` (a plugin tool, a core
tool). The handler gets what the reference host gives it (``reason`` stripped, a deep copy); a call
without ``reason``, an external call, or a tool that declares its own ``reason`` is journaled as sent.

The sentence broken (RULES.md NAME-7; seed): "Journal arguments are immutable: the recorded arguments
of a call equal what the model sent" / "Journal arguments remain immutable ... Do not ... rewrite
journal entries".
"""

from __future__ import annotations

import copy

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "NAME-7"


class ValidatedJournalSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        if refusal is None:
            gate.journal["arguments"] = copy.deepcopy(gate.params)
        return refusal


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ValidatedJournalSession)
