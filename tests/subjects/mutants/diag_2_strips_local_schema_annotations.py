"""DIAG-2 broken, cell "local schemas": the host strips every property's annotations (``title``,
``description``, ``examples``) from the schemas it advertises, so that no plugin text reaches the
provider's cache key, whether or not any external tool is registered. Without external registrations
local schemas stay local: advertised as registered (plus ``reason``). Property names, types and
``required`` are kept."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "DIAG-2"
ALSO = {
    "CAP-3": "an internal tool's schema that loses its property descriptions is a cut internal tool",
}
ANNOTATIONS = ("title", "description", "examples")


def _stripped(parameters: dict[str, Any]) -> dict[str, Any]:
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return parameters
    bare = {
        name: {k: v for k, v in schema.items() if k not in ANNOTATIONS} if isinstance(schema, dict) else schema
        for name, schema in properties.items()
    }
    return {**parameters, "properties": bare}


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if reg.external or "parameters" not in entry:
            return entry
        return {**entry, "parameters": _stripped(entry["parameters"])}


def factory() -> Adapter:
    return Adapter()
