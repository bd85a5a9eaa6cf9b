"""MANIFEST-3 broken: the install report drops the audit findings (listed-but-unregistered,
registered-but-unlisted)."""

from __future__ import annotations

from typing import Any

from tests.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" in answer:
            answer["findings"] = [f for f in answer["findings"] if f.get("rule") != "MANIFEST-3"]
        return answer


def factory() -> Adapter:
    return Adapter()
