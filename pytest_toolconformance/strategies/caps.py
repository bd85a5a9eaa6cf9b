"""Descriptions and external definitions at the caps: sizes one byte either side of a limit, with
multi-byte characters where a measure that counts characters or escapes lands on the wrong side."""

from __future__ import annotations

import functools
import string
from typing import Any

from hypothesis import strategies as st

from pytest_toolconformance.measures import DEFINITION_CAP, DESCRIPTION_CAP, definition_bytes, utf8_len
from pytest_toolconformance.strategies.schemas import ANY_WIDTH, MULTI_BYTE, PARAM_NAMES, flat_schemas

JSON = dict[str, Any]


def _fill(pattern: str, size: int) -> str:
    """``pattern`` repeated to exactly ``size`` UTF-8 bytes (padded with ASCII where a character
    would overshoot)."""
    whole = size // max(1, utf8_len(pattern))
    out = [pattern * whole]
    used = whole * utf8_len(pattern)
    for char in pattern:
        width = utf8_len(char)
        if used + width > size:
            break
        out.append(char)
        used += width
    out.append("a" * (size - used))
    return "".join(out)


@functools.cache
def _around(limit: int) -> st.SearchStrategy[int]:
    return st.sampled_from([limit - 1, limit, limit + 1])


_LAST_CHARACTERS = st.sampled_from(list(MULTI_BYTE))
_PATTERNS = st.lists(st.sampled_from(list(ANY_WIDTH)), min_size=1, max_size=8)
_LONG_SIZES = st.integers(min_value=DESCRIPTION_CAP + 2, max_value=3 * DESCRIPTION_CAP)


@st.composite
def descriptions_near(draw: st.DrawFn, limit: int = DESCRIPTION_CAP) -> str:
    """Strings of ``limit - 1``, ``limit`` or ``limit + 1`` UTF-8 bytes ending in a 2- to 4-byte
    character. At ``limit + 1`` that character straddles the cut (it starts before byte ``limit``
    and ends after it), so a correct cap drops exactly it; at ``limit`` or fewer nothing may change.
    The rest mixes characters of every width (combining marks, U+2028, emoji included)."""
    if limit < 8:
        raise ValueError("descriptions_near needs a limit of at least 8 bytes")
    total = draw(_around(limit))
    last = draw(_LAST_CHARACTERS)
    pattern = "".join(draw(_PATTERNS))
    return _fill(pattern, total - utf8_len(last)) + last


@st.composite
def _long_descriptions(draw: st.DrawFn) -> str:
    """Descriptions well over the CAP-1 limit (so the CAP-2 measure depends on the cut)."""
    size = draw(_LONG_SIZES)
    pattern = "".join(draw(_PATTERNS))
    return _fill(pattern, size)


LONG_DESCRIPTIONS = _long_descriptions()
DESCRIPTIONS_AT_THE_CAP = descriptions_near(DESCRIPTION_CAP)
_DEFINITION_NAME_PARTS = st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=8)
_DEFINITION_DESCRIPTIONS = st.one_of(st.text(alphabet=ANY_WIDTH, min_size=1, max_size=200), LONG_DESCRIPTIONS)
_DEFINITION_SCHEMAS = flat_schemas(max_properties=4)
_FILLER_PATTERNS = st.sampled_from(["é", "漢a", "😀ab", "xxxxé"])  # always some multi-byte characters


_EXTERNAL_EXTRAS = st.one_of(
    st.just({}),
    st.just({"title": "Külső eszköz"}),
    st.just({"$schema": "http://json-schema.org/draft-07/schema#", "additionalProperties": False}),
    # Numbers JSON.stringify writes differently from Python's json.dumps (0 not 0.0, 1e-7 not 1e-07).
    st.just({"minProperties": 0.0, "x-scale": 1e-07}),
)


@st.composite
def external_definitions_near(draw: st.DrawFn, limit: int = DEFINITION_CAP) -> JSON:
    """External tool definitions ``{"name", "description", "parameters"}`` whose CAP-2 size (see
    :func:`definition_bytes`: after the CAP-1 cut, as JSON.stringify bytes) is ``limit - 1``,
    ``limit`` or ``limit + 1``. Sizes are exact in bytes with multi-byte characters in the schema,
    so counting characters or ``\\uXXXX`` escapes lands on the wrong side. Some descriptions are
    over the CAP-1 limit, so measuring before the cut lands on the wrong side too."""
    if limit < 4 * DESCRIPTION_CAP:
        raise ValueError(f"external_definitions_near needs a limit of at least {4 * DESCRIPTION_CAP} bytes")
    name = "mcp__" + draw(_DEFINITION_NAME_PARTS) + "__" + draw(PARAM_NAMES)
    description = draw(_DEFINITION_DESCRIPTIONS)
    base = draw(_DEFINITION_SCHEMAS)
    parameters: JSON = {**base, **draw(_EXTERNAL_EXTRAS)}
    properties = dict(parameters["properties"])
    filler_name = "zz_filler"
    properties[filler_name] = {"type": "string", "description": ""}
    parameters["properties"] = properties
    target = draw(_around(limit))
    room = target - definition_bytes(name, description, parameters)
    pattern = draw(_FILLER_PATTERNS)
    properties[filler_name] = {"type": "string", "description": _fill(pattern, room)}
    return {"name": name, "description": description, "parameters": parameters}
