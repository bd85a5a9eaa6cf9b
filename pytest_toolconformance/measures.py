"""The caps CAP-1 and CAP-2 and the kit's own measures of them: UTF-8 bytes, the cut of a description,
``JSON.stringify`` and a definition's bytes (the Reading of CAP-2 in RULES.md).

The kit judges hosts, the reference host among them, so it measures with this module alone, never
with the reference host's code (reference_host.schemas and reference_host.typebox have their own)::

    from pytest_toolconformance import measures

    measures.utf8_prefix(description, measures.DESCRIPTION_CAP)  # what CAP-1 advertises
    measures.definition_bytes(name, description, parameters) > measures.DEFINITION_CAP  # CAP-2 applies
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

__all__ = [
    "DEFINITION_CAP",
    "DESCRIPTION_CAP",
    "definition_bytes",
    "js_stringify",
    "json_bytes",
    "same_js_text",
    "utf8_len",
    "utf8_prefix",
]


#: CAP-1: an external description is advertised in at most this many UTF-8 bytes.
DESCRIPTION_CAP = 1000
#: CAP-2: an external definition over this many serialized bytes loses its parameter schema.
DEFINITION_CAP = 8000


def utf8_len(text: str) -> int:
    """The UTF-8 byte length of ``text``."""
    return len(text.encode("utf-8", "surrogatepass"))


def utf8_prefix(text: str, limit: int) -> str:
    """The longest prefix of ``text`` of at most ``limit`` UTF-8 bytes that splits no character.

    This is what CAP-1 advertises for an external description: unchanged at ``limit`` bytes or
    fewer, and otherwise cut with no whole character dropped that would have fitted.
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    cut = limit
    while cut > 0 and (data[cut] & 0xC0) == 0x80:  # back off over the straddling character's bytes
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass")


def _js_number(value: float) -> str:
    """``String(value)`` in JS for a finite number: shortest round-trip digits, JS exponent rules.

    reference_host.typebox has its own on purpose: the kit judges hosts, the reference host
    among them, so its byte counts (CAP-2) must not come from the implementation under test."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    value = float(value)
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _js_number(-value)
    sign, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = int(exponent) + k  # value == 0.<digits> * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exp = f"e{'+' if n >= 1 else '-'}{abs(n - 1)}"
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + exp


def _is_array_index(key: str) -> bool:
    return key.isdecimal() and key.isascii() and (key == "0" or key[0] != "0") and int(key) <= 2**32 - 2


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for JSON data: compact, non-ASCII unescaped, JS number formatting,
    and JS key order (array-index keys first, ascending)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return _js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
        index = sorted((kv for kv in items if _is_array_index(kv[0])), key=lambda kv: int(kv[0]))
        ordered = index + [kv for kv in items if not _is_array_index(kv[0])]
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + js_stringify(v) for k, v in ordered) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(v) for v in value) + "]"
    raise TypeError(f"not JSON data: {type(value).__name__}")


def same_js_text(a: Any, b: Any) -> bool:
    """``JSON.stringify(a) === JSON.stringify(b)`` for JSON data. Python's own encoder answers first:
    the same text from it is the same keys in the same order and the same values, hence the same JS
    text; only where it differs (``1`` against ``1.0`` say, one text in JS) is JS's text built."""
    try:
        if json.dumps(a) == json.dumps(b):
            return True
    except (TypeError, ValueError):
        pass
    return js_stringify(a) == js_stringify(b)


def json_bytes(value: Any) -> int:
    """The UTF-8 bytes of ``JSON.stringify(value)`` for JSON data."""
    return utf8_len(js_stringify(value))


def definition_bytes(name: str, description: str, parameters: Any, *, cap_description: bool = True) -> int:
    """CAP-2's measure (RULES.md Reading): the UTF-8 bytes of ``JSON.stringify({name, description,
    parameters})``, with the description first cut by CAP-1 unless ``cap_description`` is false."""
    if cap_description:
        description = utf8_prefix(description, DESCRIPTION_CAP)
    return json_bytes({"name": name, "description": description, "parameters": parameters})
