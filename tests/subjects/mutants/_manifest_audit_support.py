"""Plumbing for the MANIFEST-3 mutants whose audit counts a refused registration as registered."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant


class RefusalCountsAsRegistered(AnswerMutant):
    """Drops the listed-but-unregistered finding of each listed tool whose refusal :meth:`counted`
    takes for a registration (and that nothing else registered under its name)."""

    def counted(self, refusal: dict[str, Any]) -> bool:
        return False

    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        answer = super().install_plugin(plugin)
        if "findings" not in answer:
            return answer
        counted = {r["tool"] for r in answer["refused"] if self.counted(r)} - set(answer["accepted"])
        answer["findings"] = [
            f
            for f in answer["findings"]
            if not (f["rule"] == "MANIFEST-3" and f["tool"] in counted and "registered no such tool" in f["message"])
        ]
        return answer
