"""DIAG-1 broken, cell "deferred external tools, before and after loading": the host redacts the
external tools it advertises, but builds the diagnostics entry of a deferred (not yet loaded) tool from
its catalog entry, unredacted: a deferred external tool's name and namespace show in the cache
diagnostics until ToolSearch loads it. Loaded external tools are redacted as on the reference host."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        diagnostics = answer["diagnostics"]
        tools: list[dict[str, Any]] = []
        shown = 0
        # The diagnostics list the session's catalog in its order, one entry per catalog entry.
        for entry, diag in zip(answer["catalog"], diagnostics["tools"], strict=True):
            if entry["deferred"] and entry["origin"] == "external":
                diag = {**diag, "name": entry["name"], "namespace": f"plugin:{entry['owner']}"}
                shown += 1
            tools.append(dict(diag))
        redacted = {**diagnostics["redacted"], "tools": diagnostics["redacted"]["tools"] - shown}
        answer["diagnostics"] = {**diagnostics, "tools": tools, "redacted": redacted}
        return answer


def factory() -> Adapter:
    return Adapter()
