"""NAME-7 broken in the cell "an external tool": external arguments are forwarded as sent (CAP-4), and
the host journals that very object, so an external owner that changes its params in place changes
the journal. Internal calls get a copy and are journaled as sent."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "NAME-7"


class AliasingSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        if refusal is None and gate.reg.external:
            gate.journal["arguments"] = gate.params
        return refusal


def factory() -> ReferenceHostAdapter:
    return session_mutant(AliasingSession)
