"""REG-4 broken in the cell "details keys named like result fields": the host folds a result's
host-only ``details`` into the result object for its own bookkeeping (``{...result, ...details}``) and
then hands the model that object's ``content`` and ``isError``. Details whose keys differ from the
result's fields never show; a ``content`` or ``isError`` key in details replaces what the model gets."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REG-4"


class Adapter(AnswerMutant):
    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
        answer = super().call(session, tool, arguments, call_id)
        details = answer.get("details")
        if "modelResult" not in answer or not isinstance(details, dict):
            return answer
        merged = {"content": answer["content"], "isError": answer["isError"], **details}
        answer["modelResult"] = {**answer["modelResult"], "content": merged["content"], "isError": merged["isError"]}
        return answer


def factory() -> Adapter:
    return Adapter()
