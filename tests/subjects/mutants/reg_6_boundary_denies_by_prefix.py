"""REG-6 broken in the cell "a call passing every stage runs its handler": the permission boundary
matches its deny entries as prefixes (as a rule like ``Bash(git:*)`` would), so denying ``Look``
also refuses ``Lookup``: a call no stage refuses never reaches its handler. A denied tool itself is
refused first, as it should be."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class PrefixBoundarySession(Session):
    def _stage_boundary(self, gate: _Gate) -> CallOutcome | None:
        if any(gate.tool.startswith(denied) for denied in self.spec.permission_deny):
            return self._refused(
                gate.tool,
                gate.call_id,
                gate.journal,
                "boundary",
                "REG-6",
                f"Tool {gate.tool!r} is blocked by the host permission boundary.",
            )
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(PrefixBoundarySession)
