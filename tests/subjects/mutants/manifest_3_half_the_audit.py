"""MANIFEST-3 broken: the install report keeps its listed-but-unregistered findings but drops the
registered-but-unlisted ones, so a report that audits at all says less than the audit found.
(A host that reports no audit finding at all meets the rule: it may read no manifest.)"""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" in answer:
            answer["findings"] = [
                f
                for f in answer["findings"]
                if not (f.get("rule") == "MANIFEST-3" and "registered but not listed" in f.get("message", ""))
            ]
        return answer


def factory() -> Adapter:
    return Adapter()
