"""CAP-1 broken: an external tool that ToolSearch loaded is advertised with its whole description.

The cell: a deferred external tool once the loader has loaded it (an external tool that was never
deferred is capped as the reference host caps it). The host caps descriptions while a composition
builds its first list, but a tool the loader adds later is copied into the list from the registry,
uncapped, in the model's tool list and in the provider payload alike.

The sentence broken (seed, RULES.md CAP-1): "During session composition, external descriptions are
capped at 1,000 UTF-8 bytes" / "An external tool's description over 1,000 UTF-8 bytes is cut to at
most 1,000 bytes without splitting a character". A loaded tool is advertised by a composition too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "CAP-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        loaded = self.host.session(session).loaded
        registry = self.host.registry

        def uncapped(entry: Mapping[str, Any]) -> dict[str, Any]:
            reg = registry.get(entry["name"])
            if reg is not None and reg.external and reg.name in loaded:
                return {**entry, "description": reg.tool.description}
            return dict(entry)

        answer["tools"] = [uncapped(e) for e in answer["tools"]]
        answer["payload"] = {**answer["payload"], "tools": [uncapped(e) for e in answer["payload"]["tools"]]}
        return answer


def factory() -> Adapter:
    return Adapter()
