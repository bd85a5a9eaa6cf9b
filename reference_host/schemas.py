"""Schema checks and transformations: the flat-object rule, ``reason``, and the external caps."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref")

#: CAP-1 and CAP-2, as in src/brain/toolSchemaCap.ts.
EXTERNAL_DESCRIPTION_CAP = 1000
EXTERNAL_DEFINITION_CAP = 8000

#: REASON-2: the fixed exclusions (every external tool is excluded too, REASON-3).
REASON_EXCLUDED = frozenset({"Bash", "ToolSearch"})
REASON_PROPERTY = {
    "type": "string",
    "description": "Optional: one short sentence on why you are calling this tool, shown to the user as status.",
}

OMISSION_NOTICE = (
    "Parameter schema omitted: this external tool's definition is over 8,000 bytes. "
    "Pass the arguments its description names; the tool validates them itself."
)


def to_json(value: Any) -> str:
    """Serialize as ``JSON.stringify`` does: compact, non-ASCII unescaped."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def json_bytes(value: Any) -> int:
    return len(to_json(value).encode("utf-8"))


def flat_object_problem(schema: Any) -> str | None:
    """Why ``schema`` is not one flat object (SCHEMA-1), or None when it is."""
    if not isinstance(schema, Mapping):
        return f"parameters must be a JSON object schema, got {type(schema).__name__}"
    if schema.get("type") != "object":
        return f"the root must have type 'object', got {schema.get('type')!r}"
    combinators = [key for key in ROOT_COMBINATORS if key in schema]
    if combinators:
        return f"the root has {', '.join(combinators)}; move the choice into the handler (see ShareImage)"
    if not isinstance(schema.get("properties"), Mapping):
        return "the root must have a 'properties' object"
    return None


def cap_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes without splitting a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


def with_reason(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The advertised schema of an internal tool: its own plus an optional ``reason``."""
    properties = dict(parameters.get("properties") or {})
    if "reason" in properties:
        return dict(parameters)
    properties["reason"] = dict(REASON_PROPERTY)
    advertised = dict(parameters)
    advertised["properties"] = properties
    return advertised


def permissive_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": True, "description": OMISSION_NOTICE}


def capped_external_definition(name: str, description: str, parameters: Any) -> tuple[str, Any, bool]:
    """(description, parameters, replaced) of an external tool as advertised (CAP-1, CAP-2)."""
    description = cap_utf8(description, EXTERNAL_DESCRIPTION_CAP)
    size = json_bytes({"name": name, "description": description, "parameters": parameters})
    if size > EXTERNAL_DEFINITION_CAP:
        return description, permissive_schema(), True
    return description, parameters, False
