"""REG-4 broken in the cell "a handler that fills details, then throws": the host streams a handler's
partial updates (each ``details`` it fills reaches the host as it goes) and, when the handler then
throws, writes the last update into the ``is_error`` result the model gets ("for context"). A result
that returns normally is handed over without its details, as it should be.

The reference host's scripted handlers keep their details to themselves until they return, so this
host reads the updates from the scripted handler it installed: its steps up to the throw."""

from __future__ import annotations

import json
from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REG-4"


class Adapter(AnswerMutant):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.handlers: dict[str, list[dict[str, Any]]] = {}

    def reset(self) -> None:
        super().reset()
        self.handlers = {}

    def install_plugin(self, plugin: Any) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        for spec in plugin.get("tools") or [] if isinstance(plugin, dict) else []:
            if spec.get("name") in answer.get("accepted", []):
                self.handlers[spec["name"]] = list(spec.get("handler") or [])
        return answer

    def _last_update(self, tool: str) -> dict[str, Any]:
        update: dict[str, Any] = {}
        for step in self.handlers.get(tool, []):
            if step.get("op") in ("throw", "throw_transport"):
                break
            if step.get("op") == "details":
                update.update(step.get("details") or {})
        return update

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
        answer = super().call(session, tool, arguments, call_id)
        if not (answer.get("isError") and answer.get("handlerRan")) or "modelResult" not in answer:
            return answer
        update = self._last_update(tool)
        if update:
            note = {"type": "text", "text": f"Last update before the failure: {json.dumps(update)}"}
            answer["content"] = [*answer["content"], note]
            answer["modelResult"] = {**answer["modelResult"], "content": [*answer["modelResult"]["content"], note]}
        return answer


def factory() -> Adapter:
    return Adapter()
