"""Schema checks and transformations: the flat-object rule, ``reason``, and the external caps."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from . import typebox

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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Number tokens ``json.dumps`` writes differently from ``JSON.stringify``: integral floats
# (``1.0`` / ``1``) and the exponent forms JS writes out or pads differently (``1e-05`` /
# ``0.00001``, ``1e-07`` / ``1e-7``, ``1e+16`` / ``10000000000000000``). Key order does not change
# a byte count, and every other float prints the same shortest round-trip digits in both.
_INTEGRAL_FLOAT = re.compile(r"\.0+(?=[,\]}]|$)")


def to_json(value: Any) -> str:
    """Serialize exactly as ``JSON.stringify`` does: compact, non-ASCII unescaped, JS numbers and key order."""
    return typebox.to_json(value)


def utf8_len(text: str) -> int:
    """UTF-8 bytes of ``text``; a lone surrogate counts as JS's ``\\uXXXX`` escape (6 bytes)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return len(_LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8"))


def json_bytes(value: Any) -> int:
    """The UTF-8 byte length of ``JSON.stringify(value)`` (CAP-2's measure).

    ``json.dumps`` (C) gives the same bytes unless a number token is written differently; the
    substring tests below are C-speed, and a false alarm (say ``1.0,`` in a description) only costs
    the exact, slower writer.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if (
        (".0" in text and _INTEGRAL_FLOAT.search(text))
        or "e-0" in text
        or "e+1" in text
        or "e+20" in text
        or "NaN" in text
        or "Infinity" in text
    ):
        text = typebox.to_json(value)
    return utf8_len(text)


def flat_object_problem(schema: Any) -> str | None:
    """Why ``schema`` is not one flat object (SCHEMA-1), or None when it is."""
    if not isinstance(schema, Mapping):
        return f"parameters must be a JSON object schema, got {type(schema).__name__}"
    # A root union (Type.Union at the root) has no type of its own: name the combinator, not the type.
    combinators = [key for key in ROOT_COMBINATORS if key in schema]
    if combinators:
        return f"the root has {', '.join(combinators)}; move the choice into the handler (see ShareImage)"
    if schema.get("type") != "object":
        return f"the root must have type 'object', got {schema.get('type')!r}"
    if not isinstance(schema.get("properties"), Mapping):
        return "the root must have a 'properties' object"
    return None


def cap_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes without splitting a character (CAP-1).

    The cut is maximal: it backs off only over the continuation bytes of the one character that
    straddles ``limit``. Lone surrogates (possible in JS strings) are carried as their 3-byte form.
    """
    if len(text) * 4 <= limit:  # even all 4-byte characters would fit: nothing to cut
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    cut = limit
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass")


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
