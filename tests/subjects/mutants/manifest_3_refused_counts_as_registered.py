"""MANIFEST-3 broken, cell "listed, registration refused": the host's audit compares provides.tools with
the names the plugin passed to registerTool, not with what was registered, so a listed tool whose
registration the host refused (a bad schema, a bad option) is not reported as listed-but-unregistered.
Registration is the live source: a refused registration registered nothing. Collision losers and
tools never registered at all are reported as on the reference host."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "MANIFEST-3"


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" not in answer:
            return answer
        attempted = {r["tool"] for r in answer["refused"] if r["rule"] != "EXT-3"} - set(answer["accepted"])
        answer["findings"] = [
            f
            for f in answer["findings"]
            if not (f["rule"] == "MANIFEST-3" and f["tool"] in attempted and "registered no such tool" in f["message"])
        ]
        return answer


def factory() -> Adapter:
    return Adapter()
