"""CAP-3 broken in the cell "a strict provider's serialisation is no cap": a host that serialises its
internal tools for a strict provider (every property required, ``additionalProperties: false``) and,
with no way to express "optional" there, drops the optional properties a plugin registered instead of
admitting ``null`` for them. The required ones and their names stay, the description stays whole, and
the optional ``reason`` is added after the serialisation (REASON-1 holds). The tool has lost
properties it was registered with: an internal tool cut down at composition. External schemas are
passed through as their owner wrote them."""

from __future__ import annotations

from typing import Any

from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.schemas import REASON_EXCLUDED, with_reason
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "CAP-3"
ALSO = {
    "DIAG-2": "without external registrations a local schema that lost registered properties is not advertised "
    "as registered, which DIAG-2's local-schema cell reads (as the annotation-stripping DIAG-2 host reads CAP-3)",
}


def strict_without_optionals(parameters: dict[str, Any]) -> dict[str, Any]:
    required = [name for name in parameters.get("required") or [] if name in parameters["properties"]]
    properties = {name: parameters["properties"][name] for name in required}
    return {**parameters, "properties": properties, "required": required, "additionalProperties": False}


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        parameters = reg.tool.parameters
        if reg.external or reg.plugin == CORE_PLUGIN or not isinstance(parameters.get("properties"), dict):
            return entry
        strict = strict_without_optionals(parameters)
        entry["parameters"] = strict if reg.name in REASON_EXCLUDED else with_reason(strict)
        return entry


def factory() -> Adapter:
    return Adapter()
