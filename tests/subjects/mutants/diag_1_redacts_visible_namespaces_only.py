"""DIAG-1 broken: a namespace is redacted only in sessions where one of its external tools is visible,
so a session its external tool is scoped out of shows the namespace that hosts it."""

from __future__ import annotations

from typing import Any

from reference_host.composition import REDACTED_NAMESPACE, REDACTED_TOOL
from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        regs = [registry.get(e["name"]) for e in answer["catalog"]]
        loaded = {e["name"] for e in answer["tools"]}
        visible_external = {reg.plugin for reg in regs if reg is not None and reg.external}
        tools = []
        for reg in regs:
            if reg is None:
                continue
            namespace = "core" if reg.plugin == "core" else f"plugin:{reg.plugin}"
            tools.append({"name": REDACTED_TOOL if reg.external else reg.name,
                          "namespace": REDACTED_NAMESPACE if reg.plugin in visible_external else namespace,
                          "loaded": reg.name in loaded})
        answer["diagnostics"] = {**answer["diagnostics"], "tools": tools}
        return answer


def factory() -> Adapter:
    return Adapter()
