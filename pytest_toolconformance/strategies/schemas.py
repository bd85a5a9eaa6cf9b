"""Flat object schemas (SCHEMA-1) in TypeBox's layout and the arguments they accept or reject, drawn
from characters of every UTF-8 width."""

from __future__ import annotations

import functools
import json
import math
import string
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

JSON = dict[str, Any]


# Characters by UTF-8 width, including ones that are easy to get wrong: a combining mark, a
# zero-width joiner, U+2028 (JSON.stringify leaves it raw), an emoji outside the BMP.
_ONE_BYTE = "abcxyz019 .,:-_/"
_TWO_BYTES = "éßñøЖ\u0301"
_THREE_BYTES = "€漢字ア\u200d\u2028"
_FOUR_BYTES = "😀𝄞🂡𠀋"
MULTI_BYTE = _TWO_BYTES + _THREE_BYTES + _FOUR_BYTES
ANY_WIDTH = _ONE_BYTE + MULTI_BYTE


def names(first: str, rest: str, min_rest: int, max_rest: int) -> st.SearchStrategy[str]:
    """A character of ``first`` and ``min_rest`` to ``max_rest`` of ``rest``: cheaper to draw and
    shrink than ``st.from_regex``."""
    tails = st.text(alphabet=rest, min_size=min_rest, max_size=max_rest)
    return st.builds(lambda a, b: a + b, st.sampled_from(first), tails)


# Strategies are built once, here, not inside a draw: Hypothesis validates a new strategy and works
# out its properties (empty? cacheable?) on its first draw, which cost more than the draw itself.
# Built the same way, they draw the same examples.
_BOOLEANS = st.booleans()


# Parameter names: never ``reason`` (the host's own status field, REASON-1..4).
PARAM_NAMES = names(string.ascii_lowercase, string.ascii_lowercase + string.digits + "_", 0, 11).filter(
    lambda n: n != "reason"
)
_SHORT_TEXT = st.text(alphabet=ANY_WIDTH, min_size=1, max_size=12)
_INTS = st.integers(min_value=-(10**6), max_value=10**6)
# Numbers a JS host echoes back unchanged: integers, and floats that are not integral (JS has no 1.0).
_NUMBERS = _INTS | st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False).filter(
    lambda f: not f.is_integer()
)
_SCALAR_TYPES = ("string", "number", "integer", "boolean")


def _described(schema: JSON) -> st.SearchStrategy[JSON]:
    return st.one_of(st.just(schema), _SHORT_TEXT.map(lambda d: {**schema, "description": d}))


def _literal(value: Any) -> JSON:
    # TypeBox's Literal: the JSON type first, then const (integers are "number").
    kind = "boolean" if isinstance(value, bool) else "string" if isinstance(value, str) else "number"
    return {"type": kind, "const": value}


_LITERAL_VALUES = st.one_of(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6), _INTS, st.booleans())

_DESCRIBED_SCALARS = {t: _described({"type": t}) for t in _SCALAR_TYPES}
_DESCRIBED_ARRAYS = {t: _described({"type": "array", "items": {"type": t}}) for t in _SCALAR_TYPES}
_PROPERTY_SCHEMAS = st.one_of(
    st.sampled_from(_SCALAR_TYPES).flatmap(_DESCRIBED_SCALARS.__getitem__),
    st.sampled_from(_SCALAR_TYPES).flatmap(_DESCRIBED_ARRAYS.__getitem__),
    _LITERAL_VALUES.map(_literal),
    st.lists(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6), min_size=2, max_size=4, unique=True).map(
        lambda values: {"anyOf": [_literal(v) for v in values]}
    ),
)


@functools.cache
def _param_name_lists(min_size: int, max_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(PARAM_NAMES, min_size=min_size, max_size=max_size, unique=True)


@st.composite
def flat_schemas(draw: st.DrawFn, *, min_properties: int = 1, max_properties: int = 6) -> JSON:
    """Flat object schemas (SCHEMA-1) in TypeBox's layout: ``{"type": "object", "required"?,
    "properties"}``, sometimes with ``additionalProperties: false``. Property names are never
    ``reason``. With the default ``min_properties=1`` every schema can be broken by a wrong type."""
    names = draw(_param_name_lists(min_properties, max_properties))
    properties = {name: draw(_PROPERTY_SCHEMAS) for name in names}
    required = [name for name in names if draw(_BOOLEANS)]
    schema: JSON = {"type": "object"}
    if required:
        schema["required"] = required
    schema["properties"] = properties
    if draw(_BOOLEANS) and draw(_BOOLEANS):
        schema["additionalProperties"] = False
    return schema


def _value_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not plain JSON (a caller's own schema): built afresh
        return _build_value_for(schema)
    return _value_for_json(key)


@functools.lru_cache(maxsize=4096)
def _value_for_json(text: str) -> st.SearchStrategy[Any]:
    # Keyed by the schema's JSON text: a draw asks again for every property of every example.
    return _build_value_for(json.loads(text))


def _build_value_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    if "anyOf" in schema:
        return st.one_of([_build_value_for(member) for member in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", 24)
        return st.text(alphabet=ANY_WIDTH, min_size=low, max_size=max(low, high))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum", -(10**6)), max_value=schema.get("maximum", 10**6))
    if kind == "number":
        return _NUMBERS.filter(lambda n: schema.get("minimum", -math.inf) <= n <= schema.get("maximum", math.inf))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(_build_value_for(schema.get("items") or {"type": "string"}), max_size=4)
    raise ValueError(f"arguments_for covers the flat subset (see flat_schemas); it cannot fill {dict(schema)!r}")


@st.composite
def _arguments(draw: st.DrawFn, schema: Mapping[str, Any]) -> JSON:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    arguments: JSON = {}
    for name, prop in properties.items():
        if name in required or draw(_BOOLEANS):
            arguments[name] = draw(_value_for(prop))
    return arguments


def arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[JSON]:
    """Arguments ``schema`` accepts: every required parameter, some optional ones, no unknown ones."""
    for prop in (schema.get("properties") or {}).values():
        _value_for(prop)  # fail now, with the property named, rather than inside a draw
    return _arguments(schema)


def _wrong_value(schema: Mapping[str, Any]) -> Any:
    """A value of the wrong JSON type for ``schema``."""
    if "anyOf" in schema or "const" in schema or "enum" in schema:
        values = (
            [m.get("const") for m in schema.get("anyOf", [])] + [schema.get("const")] + list(schema.get("enum", []))
        )
        return {"not": "one of these"} if any(isinstance(v, str) for v in values) else "not-one-of-these"
    return {"string": 12345, "number": "12", "integer": 1.5, "boolean": "true", "array": "not-a-list"}.get(
        schema.get("type"), {"wrong": "type"}
    )


def _unknown_name(schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
    known = set(schema.get("properties") or {})
    return st.sampled_from(["file", "target_file", "filePath", "unknown_param", "zz_extra"]).filter(
        lambda n: n not in known
    )


@st.composite
def _breaking(draw: st.DrawFn, schema: Mapping[str, Any], ways: list[str]) -> JSON:
    way = draw(st.sampled_from(ways))
    properties = schema.get("properties") or {}
    valid = draw(_arguments(schema))
    if way == "wrong type":
        name = draw(st.sampled_from(sorted(properties)))
        return {**valid, name: _wrong_value(properties[name])}
    if way == "missing required":
        name = draw(st.sampled_from(sorted(schema["required"])))
        return {k: v for k, v in valid.items() if k != name}
    return {draw(_unknown_name(schema)): draw(st.one_of(st.just("x"), _INTS))}


def breaking_arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[JSON]:
    """Arguments ``schema`` rejects: one wrong type, a missing required parameter, or an unknown-only
    call (only where that breaks the schema: it has a required parameter or forbids extras).

    Raises ValueError for a schema nothing can break (no properties, nothing required, extras allowed).
    """
    ways = []
    if schema.get("properties"):
        ways.append("wrong type")
    if schema.get("required"):
        ways.append("missing required")
    if schema.get("required") or schema.get("additionalProperties") is False:
        ways.append("unknown only")
    if not ways:
        raise ValueError(f"every object satisfies {dict(schema)!r}: there are no arguments that break it")
    return _breaking(schema, ways)
