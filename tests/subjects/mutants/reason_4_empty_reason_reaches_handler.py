"""REASON-4 broken: an empty ``reason`` is not consumed and reaches the handler.

Rule (REASON-4, Reading): the host consumes ``reason`` and strips it before the handler runs, so a
handler that refuses unknown parameters never sees it. Cell: an internal plugin tool called through
the call path with ``reason: ""``. This host consumes the status field with a truthiness test
(``if (params.reason) { status = params.reason; delete params.reason }``), so a non-empty reason is
stripped as on the reference host but an empty string (valid against the advertised optional string)
is left in the handler's params. Composition, validation and the journal are the reference host's.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-4"


class TruthyConsume(Session):
    def _stage_validation(self, gate: _Gate):  # noqa: ANN202 - as the reference host's stage
        refusal = super()._stage_validation(gate)
        if refusal is not None or gate.reg.external:
            return refusal
        args = gate.args
        if "reason" in args and not args["reason"] and "reason" not in gate.params:
            gate.params["reason"] = args["reason"]  # only a truthy reason was consumed
        return None


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=TruthyConsume)
