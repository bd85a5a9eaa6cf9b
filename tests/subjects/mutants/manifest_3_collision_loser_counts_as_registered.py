"""MANIFEST-3 broken, cell "listed, lost to a name collision": the host's audit counts a tool the plugin
registered under a name another plugin already owns as registered, so a listed tool that lost the
collision is not reported. The loser's registration is rejected (EXT-3): it registered nothing, and
provides.tools lists a tool the plugin does not have."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" not in answer:
            return answer
        lost = {r["tool"] for r in answer["refused"] if r["rule"] == "EXT-3"} - set(answer["accepted"])
        answer["findings"] = [
            f
            for f in answer["findings"]
            if not (f["rule"] == "MANIFEST-3" and f["tool"] in lost and "registered no such tool" in f["message"])
        ]
        return answer


def factory() -> Adapter:
    return Adapter()
