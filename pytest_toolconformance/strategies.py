"""Hypothesis strategies for the plugin tool API: public, for the kit's suites and your own tests.

Everything here is plain data in the adapter contract's JSON shapes, so a strategy's output can be
installed in any host behind an adapter (:meth:`HostClient.install`) or handed to a plugin's own
handler in a unit test::

    from hypothesis import given
    from pytest_toolconformance import strategies as tcs

    @given(tcs.flat_schemas().flatmap(lambda s: tcs.breaking_arguments_for(s).map(lambda a: (s, a))))
    def test_my_handler_refuses_bad_arguments(case):
        schema, arguments = case
        ...

Strategies:

* :func:`identities` — session identities ``{"userId", "owner", "admin"}``.
* :func:`accesses` — access descriptors as ``currentAccess()`` returns them.
* :func:`flat_schemas` — the flat-object subset of TypeBox schemas (SCHEMA-1): an object root whose
  properties are strings, numbers, integers, booleans, arrays of scalars, literals (``const``) or
  unions of literals, each optional or required, laid out as TypeBox prints them.
* :func:`arguments_for` / :func:`breaking_arguments_for` — arguments a schema accepts / rejects
  (a wrong type, a missing required parameter, or only an unknown parameter).
* :func:`descriptions_near` — UTF-8 strings of ``limit - 1`` to ``limit + 1`` bytes that end in a
  multi-byte character, so that at ``limit + 1`` the character straddles the cut (CAP-1).
* :func:`external_definitions_near` — external definitions whose CAP-2 size is ``limit - 1`` to
  ``limit + 1`` bytes.
* :func:`catalogs` / :func:`session_specs` — scripted plugins mixing internal, external, scoped and
  deferred tools, and sessions to look at them from.

And the measures the caps are defined by: :func:`utf8_len`, :func:`utf8_prefix`,
:func:`js_stringify` and :func:`definition_bytes` (the Reading of CAP-2 in RULES.md).

No hypothesis-jsonschema: it is broken with current Hypothesis, and the flat subset is small
enough to generate directly.
"""

from __future__ import annotations

import functools
import json
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

JSON = dict[str, Any]

__all__ = [
    "ACCOUNTS",
    "DEFINITION_CAP",
    "DESCRIPTION_CAP",
    "PLATFORMS",
    "PROJECTS",
    "Catalog",
    "CatalogTool",
    "accesses",
    "arguments_for",
    "breaking_arguments_for",
    "catalogs",
    "definition_bytes",
    "descriptions_near",
    "external_definitions_near",
    "flat_schemas",
    "identities",
    "js_stringify",
    "session_specs",
    "utf8_len",
    "utf8_prefix",
]

#: CAP-1: an external description is advertised in at most this many UTF-8 bytes.
DESCRIPTION_CAP = 1000
#: CAP-2: an external definition over this many serialized bytes loses its parameter schema.
DEFINITION_CAP = 8000

#: The scope values :func:`catalogs` and :func:`session_specs` draw from (SCOPE-1).
ACCOUNTS = ("acct-amber", "acct-birch")
PROJECTS = ("proj-cedar", "proj-delta")
PLATFORMS = ("web", "discord")

# Characters by UTF-8 width, including ones that are easy to get wrong: a combining mark, a
# zero-width joiner, U+2028 (JSON.stringify leaves it raw), an emoji outside the BMP.
_ONE_BYTE = "abcxyz019 .,:-_/"
_TWO_BYTES = "éßñøЖ\u0301"
_THREE_BYTES = "€漢字ア\u200d\u2028"
_FOUR_BYTES = "😀𝄞🂡𠀋"
_MULTI_BYTE = _TWO_BYTES + _THREE_BYTES + _FOUR_BYTES
_ANY_WIDTH = _ONE_BYTE + _MULTI_BYTE


# -- measures -----------------------------------------------------------------------------------


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

    reference_host.typebox has its own copy on purpose: the kit judges hosts, the reference host
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


def definition_bytes(name: str, description: str, parameters: Any, *, cap_description: bool = True) -> int:
    """CAP-2's measure (RULES.md Reading): the UTF-8 bytes of ``JSON.stringify({name, description,
    parameters})``, with the description first cut by CAP-1 unless ``cap_description`` is false."""
    if cap_description:
        description = utf8_prefix(description, DESCRIPTION_CAP)
    return utf8_len(js_stringify({"name": name, "description": description, "parameters": parameters}))


# -- identities and accesses --------------------------------------------------------------------

def _names(first: str, rest: str, min_rest: int, max_rest: int) -> st.SearchStrategy[str]:
    # Cheaper to draw and shrink than st.from_regex.
    tails = st.text(alphabet=rest, min_size=min_rest, max_size=max_rest)
    return st.builds(lambda a, b: a + b, st.sampled_from(first), tails)


_IDS = _names(string.ascii_lowercase, string.ascii_lowercase + string.digits, 2, 8)

# Strategies are built once, here, not inside a draw: Hypothesis validates a new strategy and works
# out its properties (empty? cacheable?) on its first draw, which cost more than the draw itself.
# Built the same way, they draw the same examples.
_BOOLEANS = st.booleans()
_PROJECT_ID_LISTS = st.lists(_IDS.map(lambda s: f"proj-{s}"), max_size=3, unique=True)
_EXTRA_ROOT_LISTS = st.lists(_IDS.map(lambda s: f"/workspace/{s}"), max_size=2, unique=True)
_PRINCIPALS = _IDS.map(lambda s: f"user-{s}")


def identities(accounts: Sequence[str] | None = None) -> st.SearchStrategy[JSON]:
    """Session identities ``{"userId", "owner", "admin"}``; ``userId`` from ``accounts`` when given."""
    user_ids = st.sampled_from(list(accounts)) if accounts else _IDS.map(lambda s: f"user-{s}")
    return st.fixed_dictionaries({"userId": user_ids, "owner": st.booleans(), "admin": st.booleans()})


@st.composite
def accesses(draw: st.DrawFn) -> JSON:
    """Access descriptors as ``currentAccess()`` returns them. The invariants hold: ``readOnly``
    whenever ``planMode`` (DELEG-1), and ``planFile`` only on a Plan turn (PLANFILE-1)."""
    plan_mode = draw(_BOOLEANS)
    access: JSON = {
        "admin": draw(_BOOLEANS),
        "projectIds": draw(_PROJECT_ID_LISTS),
        "readOnly": plan_mode or draw(_BOOLEANS),
        "planMode": plan_mode,
        "roots": ["/workspace"] + draw(_EXTRA_ROOT_LISTS),
        "principal": draw(_PRINCIPALS),
    }
    if plan_mode and draw(_BOOLEANS):
        access["planFile"] = f"/workspace/.plans/{draw(_IDS)}/plan.md"
    return access


# -- flat schemas and their arguments ----------------------------------------------------------

# Parameter names: never ``reason`` (the host's own status field, REASON-1..4).
_PARAM_NAMES = _names(string.ascii_lowercase, string.ascii_lowercase + string.digits + "_", 0, 11).filter(
    lambda n: n != "reason"
)
_SHORT_TEXT = st.text(alphabet=_ANY_WIDTH, min_size=1, max_size=12)
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
    return st.lists(_PARAM_NAMES, min_size=min_size, max_size=max_size, unique=True)


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
        return st.text(alphabet=_ANY_WIDTH, min_size=low, max_size=max(low, high))
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


# -- descriptions and definitions at the caps ---------------------------------------------------


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


_LAST_CHARACTERS = st.sampled_from(list(_MULTI_BYTE))
_PATTERNS = st.lists(st.sampled_from(list(_ANY_WIDTH)), min_size=1, max_size=8)
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


_LONG_DESCRIPTIONS = _long_descriptions()
_DESCRIPTIONS_AT_THE_CAP = descriptions_near(DESCRIPTION_CAP)
_DEFINITION_NAME_PARTS = st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=8)
_DEFINITION_DESCRIPTIONS = st.one_of(st.text(alphabet=_ANY_WIDTH, min_size=1, max_size=200), _LONG_DESCRIPTIONS)
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
    name = "mcp__" + draw(_DEFINITION_NAME_PARTS) + "__" + draw(_PARAM_NAMES)
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


# -- catalogs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogTool:
    """One tool of a generated catalog, with the metadata a host must keep out of its payloads."""

    name: str
    plugin: str
    external: bool
    description: str
    parameters: JSON
    owner_user_id: str | None = None
    project_id: str | None = None
    platform: str | None = None
    deferred: bool = False
    #: Its own plugin lists it by exact name in provides.readOnlyTools.
    declared_read_only: bool = False
    #: Its own plugin declares readOnlyTools ['mcp__*'].
    plugin_wildcard: bool = False

    @property
    def scoped(self) -> bool:
        return any(v is not None for v in (self.owner_user_id, self.project_id, self.platform))

    @property
    def read_only(self) -> bool:
        """RO-1/RO-3: classified read-only by its own plugin's exact name, or by its own plugin's
        ``mcp__*`` when it is external. Another plugin's declaration never counts."""
        return self.declared_read_only or (self.external and self.plugin_wildcard)

    @property
    def plan_runs(self) -> bool:
        """PLAN-2/PLAN-3: a Plan turn executes it (an exact read-only name, never an external tool)."""
        return self.declared_read_only and not self.external

    def visible_to(self, account: str, project_id: str | None, platform: str | None) -> bool:
        """SCOPE-1/2: whether a session of ``account`` in ``project_id`` on ``platform`` has this tool."""
        return (
            (self.owner_user_id is None or self.owner_user_id == account)
            and (self.project_id is None or self.project_id == project_id)
            and (self.platform is None or self.platform == platform)
        )


@dataclass(frozen=True)
class Catalog:
    """Scripted plugins to install in order, and what they register."""

    plugins: tuple[JSON, ...]
    tools: tuple[CatalogTool, ...]
    #: (plugin, tool name) pairs a plugin declared read-only although another plugin owns the tool (RO-3).
    foreign_declarations: tuple[tuple[str, str], ...] = ()

    def visible(self, account: str, project_id: str | None = None, platform: str | None = None) -> list[CatalogTool]:
        return [t for t in self.tools if t.visible_to(account, project_id, platform)]

    def visible_to(self, spec: Mapping[str, Any]) -> list[CatalogTool]:
        """The tools a session opened with ``spec`` (a :func:`session_specs` value) has."""
        account = spec.get("account") or spec["identity"].get("accountUserId") or spec["identity"]["userId"]
        return self.visible(account, spec.get("projectId"), spec.get("platform"))

    @property
    def external_plugins(self) -> set[str]:
        """Plugins (hosted namespaces) that register at least one external tool."""
        return {t.plugin for t in self.tools if t.external}

    def by_name(self) -> dict[str, CatalogTool]:
        return {t.name: t for t in self.tools}


# Every scope a catalog tool may have, unscoped first (so examples shrink to instance-wide tools).
_SCOPES: tuple[JSON, ...] = (
    {},
    *({"ownerUserId": a} for a in ACCOUNTS),
    *({"projectId": p} for p in PROJECTS),
    *({"platform": p} for p in PLATFORMS),
    *({"ownerUserId": a, "platform": p} for a in ACCOUNTS for p in PLATFORMS),
)
# Short descriptions with characters of every width; the index is drawn, not each character.
_SHORT_DESCRIPTIONS: tuple[str, ...] = (
    "",
    "Reads a thing.",
    "Écrit un fichier.",
    "搜索文档。",
    "Sends 😀 to a channel.",
    'Line one\nline two\t"quoted"',
    "Separator\u2028inside",
    "e\u0301 combining",
    "a/b:c-d_e 019",
)
_OPTION_KEYS = {"ownerUserId": "owner_user_id", "projectId": "project_id", "platform": "platform"}


# Catalog tools draw their schemas from this fixed set, which covers every kind flat_schemas() makes
# (a catalog property is about composition, not schemas; drawing one schema per tool would make a
# catalog several times slower to generate).
_CATALOG_SCHEMAS: tuple[JSON, ...] = (
    {"type": "object", "properties": {}},
    {"type": "object", "required": ["file_path"], "properties": {"file_path": {"type": "string"}}},
    {
        "type": "object",
        "required": ["query"],
        "properties": {"query": {"type": "string", "description": "Text to find."}, "limit": {"type": "integer"}},
    },
    {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "ratio": {"type": "number"},
            "dry_run": {"type": "boolean"},
        },
    },
    {
        "type": "object",
        "required": ["mode"],
        "properties": {
            "mode": {"anyOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "full"}]},
            "level": {"type": "number", "const": 3},
        },
        "additionalProperties": False,
    },
    {
        "type": "object",
        "required": ["latest"],
        "properties": {
            "latest": {"type": "boolean", "const": True},
            "note": {"type": "string", "description": "Ünïcödé 漢字 😀"},
        },
    },
    {
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "integer"}},
            "kind": {"type": "string", "const": "x"},
        },
        "additionalProperties": False,
    },
)


def _external_variants(flat: JSON) -> st.SearchStrategy[JSON]:
    return st.sampled_from(
        [
            flat,
            {**flat, "additionalProperties": {"type": "string"}, "title": "Remote"},
            {
                "type": "object",
                "anyOf": [{"required": [next(iter(flat["properties"]))]}, {"required": []}],
                "properties": flat["properties"],
            },
            {"properties": flat["properties"]},
        ]
    )


_FLAT_EXTERNAL_SCHEMAS = st.sampled_from(_CATALOG_SCHEMAS[1:])
_EXTERNAL_VARIANTS = {id(flat): _external_variants(flat) for flat in _CATALOG_SCHEMAS[1:]}


@st.composite
def _external_parameters(draw: st.DrawFn) -> JSON:
    # External schemas are the external owner's: not necessarily flat, never to be rebuilt (REASON-3).
    return draw(_EXTERNAL_VARIANTS[id(draw(_FLAT_EXTERNAL_SCHEMAS))])


_EXTERNAL_PARAMETERS = _external_parameters()
_INTERNAL_PARAMETERS = st.sampled_from(_CATALOG_SCHEMAS)
_TOOL_BITS = st.integers(min_value=0, max_value=255)
_SCOPE_DRAWS = st.integers(min_value=0, max_value=2 * len(_SCOPES) - 2)
_LONG_EXTERNAL_DESCRIPTIONS = st.one_of(_DESCRIPTIONS_AT_THE_CAP, _LONG_DESCRIPTIONS)
_SHORT_DESCRIPTION_DRAWS = st.sampled_from(_SHORT_DESCRIPTIONS)


@functools.cache
def _counts(high: int) -> st.SearchStrategy[int]:
    return st.integers(min_value=1, max_value=high)


@st.composite
def catalogs(
    draw: st.DrawFn,
    *,
    max_plugins: int = 3,
    max_tools: int = 4,
    external: bool | None = None,
    long_descriptions: bool = True,
    read_only: bool = False,
) -> Catalog:
    """Scripted plugins ``plg-NN-ns`` registering tools: internal ones (``pNN_tMM``, some with an
    ``mcp__`` name and an explicit ``external: false``), external ones (``mcp__pNN__tMM``), some
    scoped to an account, Project or platform from :data:`ACCOUNTS` / :data:`PROJECTS` /
    :data:`PLATFORMS`, some deferred by the manifest's ``deferLoading``. Names are fixed width,
    so no name or plugin name is a substring of another, and neither appears in a description.
    ``external=False`` draws no external tool, ``True`` only external ones. Every handler echoes
    its params.

    With ``read_only=True`` manifests also declare ``provides.tools`` and ``readOnlyTools``: exact
    names of some of the plugin's own tools, sometimes ``mcp__*``, and sometimes a tool of the
    previous plugin (a foreign declaration, which must classify nothing: RO-3).
    """
    n_plugins = draw(_counts(max_plugins))
    plugins: list[JSON] = []
    tools: list[CatalogTool] = []
    foreign: list[tuple[str, str]] = []
    previous: list[CatalogTool] = []
    for i in range(n_plugins):
        plugin = f"plg-{i:02d}-ns"
        docs: list[JSON] = []
        mine: list[CatalogTool] = []
        wildcard = read_only and draw(_BOOLEANS)
        for j in range(draw(_counts(max_tools))):
            # One draw for the tool's yes/no facts keeps a catalog cheap to generate; every bit
            # shrinks towards the plain case (internal, unscoped, loaded, undeclared).
            bits = draw(_TOOL_BITS)
            is_external = bool(bits & 1) if external is None else external
            if is_external:
                name = f"mcp__p{i:02d}__t{j:02d}"
                parameters = draw(_EXTERNAL_PARAMETERS)
                options: JSON = {"external": True}
            else:
                mcp_named = bits & 6 == 6
                name = f"mcp__p{i:02d}__t{j:02d}" if mcp_named else f"p{i:02d}_t{j:02d}"
                parameters = draw(_INTERNAL_PARAMETERS)
                # EXT-1/2: omitted and explicit false are both internal, whatever the name says.
                options = {"external": False} if mcp_named or bits & 8 else {}
            # About half the tools are instance-wide, the rest spread over every scope.
            scope = _SCOPES[max(0, draw(_SCOPE_DRAWS) - len(_SCOPES) + 1)]
            options.update(scope)
            if is_external and long_descriptions and bits & 48 == 48:
                description = draw(_LONG_EXTERNAL_DESCRIPTIONS)
            else:
                description = f"Tool number {j}: " + draw(_SHORT_DESCRIPTION_DRAWS)
            doc: JSON = {
                "name": name,
                "label": name,
                "description": description,
                "parameters": parameters,
                "handler": [{"op": "echo"}],
            }
            if options:
                doc["options"] = options
            docs.append(doc)
            mine.append(
                CatalogTool(
                    name=name,
                    plugin=plugin,
                    external=is_external,
                    description=description,
                    parameters=parameters,
                    deferred=bits & 192 == 192,
                    declared_read_only=read_only and bool(bits & 16),
                    plugin_wildcard=wildcard,
                    **{_OPTION_KEYS[k]: v for k, v in scope.items()},
                )
            )
        manifest: JSON = {"name": plugin}
        if read_only:
            declared = [t.name for t in mine if t.declared_read_only]
            if previous and draw(_BOOLEANS):
                stolen = draw(st.sampled_from(previous)).name
                declared.append(stolen)
                foreign.append((plugin, stolen))
            listed = [t.name for t in mine] + [n for n in declared if n not in {t.name for t in mine}]
            manifest["provides"] = {
                "tools": listed + (["mcp__*"] if wildcard else []),
                "readOnlyTools": declared + (["mcp__*"] if wildcard else []),
            }
        deferred_names = [t.name for t in mine if t.deferred]
        if deferred_names:
            manifest["deferLoading"] = deferred_names
        plugins.append({"name": plugin, "manifest": manifest, "tools": docs})
        tools.extend(mine)
        previous = mine
    return Catalog(plugins=tuple(plugins), tools=tuple(tools), foreign_declarations=tuple(foreign))


def session_specs(*, extra_account: str = "acct-cobalt") -> st.SearchStrategy[JSON]:
    """Session specs (for ``HostClient.open(**spec)``) of an account from :data:`ACCOUNTS` or
    ``extra_account`` (which no tool is scoped to), in a Project from :data:`PROJECTS` or none, on a
    platform from :data:`PLATFORMS` or none."""

    def spec(account: str, project: str | None, platform: str | None) -> JSON:
        out: JSON = {"identity": {"userId": account}}
        if project is not None:
            out["projectId"] = project
        if platform is not None:
            out["platform"] = platform
        return out

    return st.builds(
        spec,
        st.sampled_from([*ACCOUNTS, extra_account]),
        st.sampled_from([*PROJECTS, None]),
        st.sampled_from([*PLATFORMS, None]),
    )
