"""PLAN-2 broken, in the cell "its handler never runs": on a Plan turn the host refuses an undeclared
internal plugin tool exactly as the reference host does (same text, stage ``plan``, ``handlerRan: false``),
but first runs the handler as a "preview" of what the call would do and throws its result away. The
refusal looks right; the tool's effects happened anyway.

The rule's sentence: "Plan mode executes only the read-only set ...; any other call is refused at execution
time and its handler never runs" (seed: "Plan mode keeps every tool advertised and executes only the
read-only set").
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "PLAN-2"
# REG-6's sentence says the same of every stage ("a refusal at any of them means the handler never runs"),
# so a REG-6 check that watches a plan-stage refusal for the handler's effects fails with PLAN-2.
ALSO = {"REG-6": "a plan-stage refusal whose handler ran breaks REG-6's 'the handler never runs' too"}


class PreviewingSession(Session):
    def _stage_plan(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_plan(gate)
        reg = gate.reg
        if refusal is not None and not reg.external and reg.plugin != CORE_PLUGIN and isinstance(gate.args, Mapping):
            params = {k: v for k, v in copy.deepcopy(dict(gate.args)).items() if k != "reason"}
            self._run_handler(reg, gate.call_id, params, {}, [], None)  # the "preview"; its outcome is dropped
        return refusal


def factory() -> ReferenceHostAdapter:
    return session_mutant(PreviewingSession)
