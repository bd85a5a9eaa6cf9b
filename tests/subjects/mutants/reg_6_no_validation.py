"""REG-6 broken: the host hands an internal tool's arguments to the handler without validating them."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.schemas import REASON_EXCLUDED
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class UnvalidatedSession(Session):
    def _stage_validation(self, gate: Any) -> CallOutcome | None:
        if gate.reg.external or not isinstance(gate.args, Mapping):
            return super()._stage_validation(gate)
        params = copy.deepcopy(dict(gate.args))
        if gate.tool not in REASON_EXCLUDED and "reason" not in (gate.reg.tool.parameters.get("properties") or {}):
            params.pop("reason", None)
        gate.params = params
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(UnvalidatedSession)
