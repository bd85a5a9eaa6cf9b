"""A host that serialises its own (internal) tools for a strict provider (OpenAI's structured outputs,
``strict: true``): every property is listed as required, an optional one admits ``null`` instead
(``"type": ["string", "null"]``), and ``additionalProperties`` is false. The tool keeps every property
it was registered with and every required name, its description whole: nothing is cut or lost, so no
cap rule is broken (CAP-3 stays green), nothing is redacted (DIAG-2) and no registration metadata is
inserted (DIAG-3). What it breaks: the optional ``reason`` it adds becomes required (REASON-1: "it is
never required"). External schemas are passed through as the owner wrote them."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "REASON-1"


def strict(parameters: dict[str, Any]) -> dict[str, Any]:
    required = set(parameters.get("required") or [])
    properties = {
        name: {**spec, "type": [spec["type"], "null"]}
        if name not in required and isinstance(spec, dict) and isinstance(spec.get("type"), str) else spec
        for name, spec in parameters["properties"].items()
    }
    return {**parameters, "properties": properties, "required": list(properties), "additionalProperties": False}


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        parameters = entry.get("parameters")
        if not reg.external and isinstance(parameters, dict) and isinstance(parameters.get("properties"), dict):
            entry["parameters"] = strict(parameters)
        return entry


def factory() -> Adapter:
    return Adapter()
