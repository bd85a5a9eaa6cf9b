"""PLAN-1 broken: a Plan turn advertises only the tools plan mode would execute."""

from __future__ import annotations

from typing import Any

from reference_host.core_tools import CORE_READ_ONLY, PLAN_DEFAULTS
from tests.subjects.mutants.base import AnswerMutant

RULE = "PLAN-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer or not self.host.session(session).restrictions.plan_turn:
            return answer
        registry = self.host.registry

        def runs(entry: dict[str, Any]) -> bool:
            reg = registry.get(entry["name"])
            return reg is not None and (reg.name in CORE_READ_ONLY | PLAN_DEFAULTS or reg.plan_admitted)

        answer["catalog"] = [e for e in answer["catalog"] if runs(e)]
        answer["tools"] = [e for e in answer["tools"] if runs(e)]
        answer["payload"] = {**answer["payload"], "tools": [e for e in answer["payload"]["tools"] if runs(e)]}
        return answer


def factory() -> Adapter:
    return Adapter()
