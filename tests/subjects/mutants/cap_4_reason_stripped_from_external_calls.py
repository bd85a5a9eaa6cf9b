"""CAP-4, broken: the host consumes ``reason`` from external calls too.

The host owns the optional ``reason`` status field of internal tools and strips it before their
handler runs (REASON-4). This host strips it from every call, the external ones included: an MCP
tool whose own schema has a ``reason`` parameter (a moderation tool's ban reason, a ticket's close
reason), or whose owner would reject or log an unexpected key, receives its arguments without it. The
advertised schema is untouched (external schemas never gain ``reason``, as REASON-3 wants), external
arguments are otherwise forwarded as sent and not validated, and internal tools are handled exactly
as the reference handles them.

Cell of the sentence: "forwards an external call's arguments to it as sent", for the one key the
host itself consumes on internal calls (``reason``), whether or not the external schema declares it.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "CAP-4"


class ReasonEverywhereSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        if refusal is None and gate.reg.external:
            gate.params.pop("reason", None)  # "the host consumes reason", applied to every origin
        return refusal


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ReasonEverywhereSession)
