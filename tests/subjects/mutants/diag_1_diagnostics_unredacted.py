"""DIAG-1 broken: the cache diagnostics name external tools and their namespaces."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        loaded = {e["name"] for e in answer["tools"]}
        tools = []
        for entry in answer["catalog"]:
            reg = registry.get(entry["name"])
            namespace = "core" if reg is None or reg.plugin == "core" else f"plugin:{reg.plugin}"
            tools.append({"name": entry["name"], "namespace": namespace, "loaded": entry["name"] in loaded})
        answer["diagnostics"] = {"tools": tools, "redacted": {"tools": 0, "namespaces": 0}}
        return answer


def factory() -> Adapter:
    return Adapter()
