"""CAP-1 broken: external descriptions are advertised uncapped."""

from __future__ import annotations

from typing import Any

from tests.mutants.base import AnswerMutant

RULE = "CAP-1"
# The EXT-2 and EXT-4 scenario cases (scenarios/ext/origin-not-from-name.json, deferred-origin.json) take
# a capped description as evidence that a tool is treated as external, so uncapping breaks them too.
ALSO = ("EXT-2", "EXT-4")


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry

        def uncapped(entry: dict[str, Any]) -> dict[str, Any]:
            # Composition entries are shared between sessions (and refuse edits): change a copy.
            reg = registry.get(entry["name"])
            if reg is not None and reg.external:
                return {**entry, "description": reg.tool.description}
            return entry

        answer["tools"] = [uncapped(entry) for entry in answer["tools"]]
        answer["payload"] = {**answer["payload"], "tools": [uncapped(entry) for entry in answer["payload"]["tools"]]}
        return answer


def factory() -> Adapter:
    return Adapter()
