"""CAP-1 broken: external descriptions are advertised uncapped."""

from __future__ import annotations

from typing import Any

from tests.mutants.base import AnswerMutant

RULE = "CAP-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        for entry in answer["tools"]:
            reg = registry.get(entry["name"])
            if reg is not None and reg.external:
                entry["description"] = reg.tool.description
        for entry in answer["payload"]["tools"]:
            reg = registry.get(entry["name"])
            if reg is not None and reg.external:
                entry["description"] = reg.tool.description
        return answer


def factory() -> Adapter:
    return Adapter()
