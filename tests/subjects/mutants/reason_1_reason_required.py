"""REASON-1 broken: the reason field is added as a required parameter."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        parameters = entry["parameters"]
        if not reg.external and "reason" in (parameters.get("properties") or {}):
            entry["parameters"] = {**parameters, "required": [*(parameters.get("required") or []), "reason"]}
        return entry


def factory() -> Adapter:
    return Adapter()
