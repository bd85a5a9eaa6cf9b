"""REG-5 broken: names a manifest lists in provides.tools are advertised although never registered."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REG-5"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        for plugin in registry.plugins():
            manifest = registry.manifest(plugin)
            for name in manifest.tools if manifest else ():
                if registry.get(name) is None and not name.endswith("*"):
                    stub = {
                        "name": name,
                        "description": f"{name} (declared)",
                        "parameters": {"type": "object", "properties": {}},
                    }
                    answer["catalog"].append({"name": name, "deferred": False})
                    answer["tools"].append(stub)
                    answer["payload"]["tools"].append({"type": "function", **stub})
        return answer


def factory() -> Adapter:
    return Adapter()
