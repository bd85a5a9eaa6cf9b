"""REASON-4 broken: a deferred tool loaded through ToolSearch gets ``reason`` in its params.

Rule (REASON-4, Reading): the host consumes ``reason`` and strips it before the handler runs.
Cell: the deferral path: an internal plugin tool with ``deferLoading``, loaded by ToolSearch and then
called. This host hands a loaded deferred tool's arguments to its handler through the loader's
proxy, which forwards them as the model sent them, so the ``reason`` the loaded tool is advertised
with (REASON-1) reaches the handler. Tools that were never deferred are stripped as on the reference
host; composition, validation and the journal are unchanged.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session, _Gate
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-4"


class LoaderProxyForwardsReason(Session):
    def _stage_validation(self, gate: _Gate):  # noqa: ANN202 - as the reference host's stage
        refusal = super()._stage_validation(gate)
        if refusal is not None:
            return refusal
        reg = gate.reg
        if not reg.external and reg.deferred and gate.tool in self.loaded and "reason" in gate.args:
            gate.params["reason"] = gate.args["reason"]
        return None


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=LoaderProxyForwardsReason)
