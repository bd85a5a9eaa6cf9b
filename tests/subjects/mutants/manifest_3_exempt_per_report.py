"""MANIFEST-3 broken: the host audits provides.tools, but returns early for a plugin that registered no
tool ("nothing to merge"), so that plugin's listed-but-unregistered tools are never reported. The host
reports audit findings for every other plugin: it is an auditing host, and an auditing host's audit
names every mismatch, in every install report.
(A host that reports no audit finding at all meets the rule: it may read no manifest.)"""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" in answer and not answer.get("accepted"):
            answer["findings"] = [f for f in answer["findings"] if f.get("rule") != "MANIFEST-3"]
        return answer


def factory() -> Adapter:
    return Adapter()
