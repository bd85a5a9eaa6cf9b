"""The reference host advertising every internal tool with a required field of its own (``intent``),
as some real hosts do to learn why the model calls a tool. It caps nothing: its internal tools keep
every property and required name they were registered with, and external schemas are left as
registered (adding to those is REASON-3's "never reconstructed", see the mutant
``reason_3_external_gains_intent``). CAP-3 once read the addition as a cap."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

INTENT = {"type": "string", "description": "Why the model calls this tool (the host's own field)."}


def with_intent(entry: dict[str, Any]) -> dict[str, Any]:
    parameters = dict(entry.get("parameters") or {})
    parameters["properties"] = {**(parameters.get("properties") or {}), "intent": INTENT}
    parameters["required"] = [*(parameters.get("required") or []), "intent"]
    return {**entry, "parameters": parameters}


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        return entry if reg.external else with_intent(entry)


def factory() -> Adapter:
    return Adapter()
