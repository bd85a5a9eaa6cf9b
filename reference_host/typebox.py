"""A TypeBox 1.x look-alike: ``Type.*`` builds JSON-Schema dicts that serialize like TypeBox does.

``json.dumps(schema, separators=(",", ":"), ensure_ascii=False)`` of a schema built here equals
``JSON.stringify`` of the same ``Type.*`` call in TypeBox 1.x (checked by
``tests/reference_host/test_typebox_compat.py``).
Facts mirrored from TypeBox 1.4:

* generated keys come first, options after them (``{...generated, ...options}``); an option that
  names a generated key (e.g. ``type``) replaces its value but keeps its position;
* ``Object`` -> ``type, required, properties``; ``required`` lists the non-optional property names in
  property order and is left out when empty; ``Object({})`` is ``{"type":"object","properties":{}}``;
* ``Optional`` only sets non-enumerable ``~optional``/``~kind`` in JS, so nothing of it is serialized;
  here it returns a marked ``dict`` subclass (see ``Type.IsOptional``) that serializes as a plain dict;
* ``Literal(v)`` -> ``{"type": "string"|"number"|"boolean", "const": v}`` (``number`` for ints too);
* ``Union`` -> ``{"anyOf": [...]}`` with no flattening, even for zero or one member;
* JS numbers: integral floats become ints (``1.0`` -> ``1``), ``-0.0`` -> ``0``, NaN/Infinity -> ``None``,
  ints past 2**53 round as JS doubles do;
* JS key order: object keys that are array indices (``"0"`` .. ``"4294967294"``) come first, ascending.

Python ``None`` is JSON ``null`` (JS ``null``, not ``undefined``). One difference remains under
``json.dumps``: non-integral floats below 1e-4 (Python ``1e-05``, JS ``0.00001``); ``to_json``
formats numbers as JS does, so use it to count serialized bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

Schema = dict[str, Any]

__all__ = ["Schema", "Type", "to_json"]

_MAX_ARRAY_INDEX = 2**32 - 2
_MAX_SAFE_INTEGER = 2**53


class _OptionalSchema(dict):  # type: ignore[type-arg]
    """A schema marked by ``Type.Optional``; serializes exactly like a plain dict."""

    __slots__ = ()


def _is_array_index(key: str) -> bool:
    """True for keys JS orders first: canonical integers 0 .. 2**32 - 2."""
    return key.isdecimal() and key.isascii() and (key == "0" or key[0] != "0") and int(key) <= _MAX_ARRAY_INDEX


def _js_key(key: Any) -> str:
    """The property name JS would use for a Python dict key (``1`` and ``1.0`` -> ``"1"``)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        return _js_number(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _js_ordered(items: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Items in JS own-property order: array-index keys ascending, then the rest as inserted."""
    index = sorted((kv for kv in items if _is_array_index(kv[0])), key=lambda kv: int(kv[0]))
    return index + [kv for kv in items if not _is_array_index(kv[0])]


def _js_value(value: Any) -> Any:
    """A copy of ``value`` whose ``json.dumps`` matches ``JSON.stringify`` (numbers and key order)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        number = _js_float(value)
        if not math.isfinite(number):
            return None
        if number.is_integer() and abs(number) < 1e21:
            return int(_js_number(number))  # JS digits: 2.0**60 -> 1152921504606847000, not ...976
        return number
    if isinstance(value, Mapping):
        items = _js_ordered([(_js_key(k), _js_value(v)) for k, v in value.items()])
        return _OptionalSchema(items) if isinstance(value, _OptionalSchema) else dict(items)
    if isinstance(value, list | tuple):
        return [_js_value(v) for v in value]
    return value


def _build(generated: Mapping[str, Any], options: Mapping[str, Any]) -> Schema:
    """``{...generated, ...options}`` in JS key order."""
    merged = dict(generated)
    merged.update(options)
    return _js_value(merged)


class Type:
    """TypeBox's ``Type`` namespace: ``Type.Object({...})``, ``Type.String(minLength=1)`` and so on."""

    @staticmethod
    def Object(properties: Mapping[str, Schema], **options: Any) -> Schema:
        """``{"type":"object","required":[...],"properties":{...}}``; ``required`` only when non-empty."""
        props = _js_ordered([(_js_key(k), v) for k, v in properties.items()])
        required = [key for key, schema in props if not Type.IsOptional(schema)]
        generated: dict[str, Any] = {"type": "object"}
        if required:
            generated["required"] = required
        generated["properties"] = dict(props)
        return _build(generated, options)

    @staticmethod
    def String(**options: Any) -> Schema:
        """``{"type":"string", ...options}``."""
        return _build({"type": "string"}, options)

    @staticmethod
    def Number(**options: Any) -> Schema:
        """``{"type":"number", ...options}``; integral float options serialize as ints, as in JS."""
        return _build({"type": "number"}, options)

    @staticmethod
    def Integer(**options: Any) -> Schema:
        """``{"type":"integer", ...options}``."""
        return _build({"type": "integer"}, options)

    @staticmethod
    def Boolean(**options: Any) -> Schema:
        """``{"type":"boolean", ...options}``."""
        return _build({"type": "boolean"}, options)

    @staticmethod
    def Array(items: Schema, **options: Any) -> Schema:
        """``{"type":"array","items":items, ...options}``."""
        return _build({"type": "array", "items": items}, options)

    @staticmethod
    def Union(schemas: Sequence[Schema], **options: Any) -> Schema:
        """``{"anyOf":[...], ...options}``; members are kept as given (no flattening)."""
        return _build({"anyOf": list(schemas)}, options)

    @staticmethod
    def Optional(schema: Schema) -> Schema:
        """The same schema, marked optional for ``Object``; the mark is never serialized."""
        return _OptionalSchema(_js_value(schema))

    @staticmethod
    def IsOptional(schema: Any) -> bool:
        """True if ``schema`` came from ``Type.Optional`` (TypeBox's ``Type.IsOptional``)."""
        return isinstance(schema, _OptionalSchema)

    @staticmethod
    def Literal(value: str | float | bool, **options: Any) -> Schema:
        """``{"type":"string"|"number"|"boolean","const":value, ...options}``."""
        if isinstance(value, bool):
            kind = "boolean"
        elif isinstance(value, str):
            kind = "string"
        elif isinstance(value, int | float):
            kind = "number"
        else:
            raise TypeError(f"Invalid Literal value: {value!r} (want str, int, float or bool)")
        return _build({"type": kind, "const": value}, options)


def _js_float(value: float) -> float:
    """The JS number a Python number becomes (huge ints round, past the double range to infinity)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _js_number(value: float) -> str:
    """``String(value)`` in JS (Number::toString): shortest round-trip digits, JS exponent rules."""
    if isinstance(value, int) and abs(value) <= _MAX_SAFE_INTEGER:
        return str(value)
    value = _js_float(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _js_number(-value)
    parts = Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, parts.digits))
    k = len(digits)
    n = int(parts.exponent) + k  # value == 0.<digits> * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = f"e{'+' if n >= 1 else '-'}{abs(n - 1)}"
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + exponent


def _write(value: Any, out: list[str]) -> None:
    """Append the ``JSON.stringify`` text of ``value`` to ``out``."""
    if isinstance(value, str) or value is None or isinstance(value, bool):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int | float):
        out.append(_js_number(value) if math.isfinite(_js_float(value)) else "null")
    elif isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(_js_ordered([(_js_key(k), v) for k, v in value.items()])):
            if i:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def to_json(schema: Any) -> str:
    """Compact JSON exactly as JS ``JSON.stringify`` prints it (key order, number format, no ASCII escaping).

    For schemas built by ``Type`` this equals ``json.dumps(schema, separators=(",", ":"), ensure_ascii=False)``
    except for non-integral floats below 1e-4, which this writes the JS way (``0.00001``, ``1e-7``).
    """
    out: list[str] = []
    _write(schema, out)
    return "".join(out)
