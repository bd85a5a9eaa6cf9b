"""SCOPE-2 broken: a scoped tool is listed in every session and only refused when called from outside
its scope."""

from __future__ import annotations

from typing import Any

from reference_host.composition import advertised_definition, in_scope
from tests.subjects.mutants.base import AnswerMutant

RULE = "SCOPE-2"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        view = self.host.session(session).view()
        hidden = [reg for reg in self.host.registry if not in_scope(reg, view)]
        answer["catalog"] = [*answer["catalog"], *({"name": reg.name, "deferred": False} for reg in hidden)]
        extra = [dict(advertised_definition(reg)) for reg in hidden]
        answer["tools"] = [*answer["tools"], *extra]
        answer["payload"] = {**answer["payload"],
                             "tools": [*answer["payload"]["tools"], *({"type": "function", **e} for e in extra)]}
        return answer


def factory() -> Adapter:
    return Adapter()
