"""Arguments for a tool's flat schema: valid ones, breaking ones, and what makes a call break.

These are the arguments of a call into a plugin under test (``call_arguments_for``,
``breaking_call_arguments_for``): the public :mod:`pytest_toolconformance.strategies`
(``arguments_for``, ``breaking_arguments_for``, for the flat subset a host check generates) fills
the schemas it covers, with path-like values made safe; these private strategies cover the rest
(``Type.Any``, nested objects, a schema with nothing required).
Every case goes through :func:`classify`, so the suites never depend on how a strategy labels it.

Path-like string parameters get short relative names only: a plugin's Write tool, handed a
generated ``/etc/x`` or ``../../x``, would otherwise write outside the temporary working directory
the kit gives every call.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import jsonschema
from hypothesis import strategies as st

from pytest_toolconformance import strategies as _public
from pytest_toolconformance.plugins.loaders.python_guard import FAULT_ORIGIN
from pytest_toolconformance.profile import name_strategy

JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")
SAFE_NAMES = ("notes.txt", "README.md", "src", "src/main.py", "missing.txt", "out.txt", "image.png")
_PATHISH = re.compile(r"(^|_)(path|dir|directory|folder|cwd|file|filename)$|^(file|path|cwd|dir)", re.IGNORECASE)
_UNKNOWN_NAMES = ("filePath", "file", "filename", "target_file", "unknown_option", "extra", "legacyTarget", "dir")
_JS_SAFE = 2**53 - 1


S = TypeVar("S")


def per_schema(build: Callable[[dict[str, Any]], S]) -> Callable[[Mapping[str, Any]], S]:
    """``build``, built once per schema (by its JSON text, in its own key order): every check of a
    tool gets the same strategy object, so a property run with ``share_draws`` generates its values
    once for all of them (:func:`pytest_toolconformance.profile.run_property`). The strategy is
    named by the builder and the schema's text, so its draws are kept across runs too."""

    @functools.lru_cache(maxsize=1024)
    def built(text: str) -> S:
        strategy = build(json.loads(text))
        return name_strategy(strategy, f"{build.__module__}.{build.__qualname__}:{text}")  # type: ignore[arg-type]

    @functools.wraps(build)
    def per(schema: Mapping[str, Any]) -> S:
        try:
            text = json.dumps(schema, allow_nan=False)
        except (TypeError, ValueError):  # not plain JSON: built afresh, shared with nothing
            return build(dict(schema))
        return built(text)

    return per


def properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return dict(props) if isinstance(props, Mapping) else {}


def required(schema: Mapping[str, Any]) -> list[str]:
    req = schema.get("required")
    props = properties(schema)
    return [r for r in req if isinstance(r, str) and r in props] if isinstance(req, list) else []


def is_pathish(name: str) -> bool:
    return bool(_PATHISH.search(name))


def _validator(schema: Mapping[str, Any]) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def valid(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` satisfies ``schema`` (False when the schema itself cannot be used)."""
    try:
        return _validator(schema).is_valid(value)
    except Exception:  # noqa: BLE001 - an unusable schema validates nothing
        return False


# -- valid values ---------------------------------------------------------------------------------

_SAFE_PATH = st.sampled_from(SAFE_NAMES) | st.from_regex(r"[a-z][a-z0-9_]{0,8}(\.[a-z]{1,3})?", fullmatch=True)

# Strings whose name, description or format says what they hold get values of that shape, so that a
# call reaches the code behind the parameter (a fetch tool's request, and so its transport handling,
# ERR-3 and ERR-4: the kit's network guard fails every request as a real outage would).
_SHAPED_VALUES: dict[str, tuple[str, ...]] = {
    "url": ("https://example.com/", "https://api.example.com/v1/items?q=hello", "http://127.0.0.1:9/status"),
    "email": ("someone@example.com", "a.b@example.org"),
    "date-time": ("2026-01-01T00:00:00Z", "2026-12-31T23:59:59+01:00"),
    "date": ("2026-01-01", "2026-12-31"),
}
_SHAPE_OF_FORMAT = {"uri": "url", "url": "url", "iri": "url", "uri-reference": "url", "email": "email",
                    "date-time": "date-time", "date": "date"}
_SHAPE_NAME = (
    ("url", re.compile(r"(^|_)(url|uri|href|link|endpoint|website|homepage)s?$|^(url|uri)(_|$)", re.IGNORECASE)),
    ("email", re.compile(r"(^|_)e?mail(_address)?$", re.IGNORECASE)),
    ("date-time", re.compile(r"(^|_)(datetime|timestamp)$", re.IGNORECASE)),
    ("date", re.compile(r"(^|_)date$", re.IGNORECASE)),
)
_SHAPE_DESCRIPTION = (
    ("url", re.compile(r"^(the |a |an )?(\w+ )?(url|uri|link|web address)\b", re.IGNORECASE)),
    ("email", re.compile(r"^(the |an? )?(\w+ )?e-?mail( address)?\b", re.IGNORECASE)),
)


def string_shape(name: str, schema: Mapping[str, Any]) -> str | None:
    """What a string parameter holds (``url``, ``email``, ``date``, ``date-time``), or None."""
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _SHAPE_OF_FORMAT:
        return _SHAPE_OF_FORMAT[fmt]
    for shape, pattern in _SHAPE_NAME:
        if pattern.search(name):
            return shape
    description = schema.get("description")
    if isinstance(description, str):
        for shape, pattern in _SHAPE_DESCRIPTION:
            if pattern.search(description.strip()):
                return shape
    return None


def json_values(depth: int = 2) -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-1000, 1000)
        | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
        | st.text(max_size=12)
    )
    if depth <= 0:
        return scalars
    inner = json_values(depth - 1)
    return scalars | st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)


def _number_bounds(schema: Mapping[str, Any]) -> tuple[float | None, float | None]:
    low = schema.get("minimum")
    high = schema.get("maximum")
    exclusive_minimum = schema.get("exclusiveMinimum")
    if isinstance(exclusive_minimum, (int, float)) and not isinstance(exclusive_minimum, bool):
        low = schema["exclusiveMinimum"] + 1
    if isinstance(schema.get("exclusiveMaximum"), (int, float)) and not isinstance(
        schema.get("exclusiveMaximum"), bool
    ):
        high = schema["exclusiveMaximum"] - 1
    return (low if isinstance(low, (int, float)) else None, high if isinstance(high, (int, float)) else None)


def value_for(schema: Any, *, name: str = "", depth: int = 0) -> st.SearchStrategy[Any]:
    """Values that satisfy one property schema (best effort; callers filter with :func:`valid`)."""
    if not isinstance(schema, Mapping) or depth > 4:
        return json_values(1)
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return st.one_of([value_for(s, name=name, depth=depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of(
            [value_for({**schema, "type": k}, name=name, depth=depth + 1) for k in kind if k in JSON_TYPES]
        )
    if kind == "string":
        if isinstance(schema.get("pattern"), str):
            try:
                return st.from_regex(schema["pattern"])
            except Exception:  # noqa: BLE001 - a pattern Python cannot read: plain text, filtered later
                return st.text(max_size=20)
        if is_pathish(name):
            return _SAFE_PATH
        low = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
        high = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else max(low, 0) + 20
        text = st.text(min_size=low, max_size=max(low, min(high, low + 20)))
        shape = string_shape(name, schema)
        # Values of its shape first (Hypothesis shrinks towards the first branch), boundary text beside them.
        return st.sampled_from(_SHAPED_VALUES[shape]) | text if shape is not None else text
    if kind == "integer":
        low, high = _number_bounds(schema)
        return st.integers(int(low) if low is not None else -1000, int(high) if high is not None else 1000)
    if kind == "number":
        low, high = _number_bounds(schema)
        lo, hi = (low if low is not None else -1e6), (high if high is not None else 1e6)
        return st.integers(int(max(lo, -_JS_SAFE)), int(min(hi, _JS_SAFE))) | st.floats(
            lo, hi, allow_nan=False, allow_infinity=False
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        low = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 0
        high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else low + 3
        items = schema.get("items")
        element = value_for(items, name=name, depth=depth + 1) if isinstance(items, Mapping) else json_values(0)
        return st.lists(element, min_size=low, max_size=max(low, min(high, low + 3)))
    if kind == "object":
        return object_for(schema, depth=depth + 1)
    return json_values(1)


def object_for(
    schema: Mapping[str, Any], *, depth: int = 0, all_optional: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    props = properties(schema)
    req = set(required(schema))
    fixed = {k: value_for(v, name=k, depth=depth) for k, v in props.items() if k in req or all_optional}
    optional = {k: value_for(v, name=k, depth=depth) for k, v in props.items() if k not in req and not all_optional}
    return st.fixed_dictionaries(fixed, optional=optional)


def _public_covers(schema: Mapping[str, Any]) -> bool:
    """Whether the public strategies can fill every property (they check eagerly in strategies.arguments_for)."""
    try:
        _public.arguments_for(schema)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


@per_schema
def call_arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid argument objects for a flat object schema (the public strategy where it covers the schema)."""
    base: st.SearchStrategy[dict[str, Any]] | None = None
    if _public_covers(schema):
        # Outside the public flat subset (Type.Any, nested objects...), ours below.
        base = _public.arguments_for(schema).map(sanitize_paths)
    if base is None:
        base = object_for(schema)
    return base.filter(lambda args: valid(schema, args))


@per_schema
def full_call_arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid argument objects that carry every declared parameter, optional ones too."""
    return object_for(schema, all_optional=True).filter(lambda args: valid(schema, args))


_PLAIN_RELATIVE = re.compile(r"(?!/)(?!.*\.\.)[\w .-]+(/[\w .-]+)*")


def sanitize_paths(args: Any) -> Any:
    """Replace every value of a path-like parameter that is not a plain relative name with one that is."""
    if not isinstance(args, dict):
        return args
    out = {}
    for key, value in args.items():
        if isinstance(value, str) and is_pathish(key) and not _PLAIN_RELATIVE.fullmatch(value):
            value = "notes.txt"
        out[key] = value
    return out


def paths_are_safe(args: Any) -> bool:
    return sanitize_paths(args) == args


_EXAMPLE = {"string": "notes.txt", "number": 1, "integer": 1, "boolean": True, "array": [], "object": {}, "null": None}


def simplest_value(schema: Any, name: str = "") -> Any:
    """One small valid value for a property schema, or a guess when none is obvious."""
    if not isinstance(schema, Mapping):
        return "x"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema and valid(schema, schema["default"]):
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return simplest_value(schema[key][0], name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "string":
        shape = string_shape(name, schema)
        candidate = "notes.txt" if is_pathish(name) else _SHAPED_VALUES[shape][0] if shape is not None else "hello"
        low = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
        if len(candidate) < low:
            candidate = candidate + "x" * (low - len(candidate))
        return candidate
    if kind in ("number", "integer"):
        low, high = _number_bounds(schema)
        value = 1 if low is None or low <= 1 else low
        if high is not None and value > high:
            value = high
        return int(value) if kind == "integer" else value
    if kind == "array":
        low = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 0
        return [simplest_value(schema.get("items"), name) for _ in range(low)]
    if kind == "object":
        return simplest_arguments(schema)
    return _EXAMPLE.get(kind, "x") if isinstance(kind, str) else "x"


def simplest_arguments(schema: Mapping[str, Any], *, full: bool = False) -> dict[str, Any]:
    """The smallest obvious valid call: required parameters only (every parameter with ``full``)."""
    req = set(required(schema))
    return {k: simplest_value(v, k) for k, v in properties(schema).items() if full or k in req}


def _url_parameters(schema: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """Each URL-shaped string parameter, and whether it is a list of URLs, in name order."""
    found: list[tuple[str, bool]] = []
    for name, prop in sorted(properties(schema).items()):
        if not isinstance(prop, Mapping):
            continue
        items = prop.get("items") if prop.get("type") == "array" else None
        leaf = items if isinstance(items, Mapping) else prop
        if leaf.get("type") == "string" and "url" in (string_shape(name, leaf), string_shape(name, prop)):
            found.append((name, leaf is not prop))
    return found


def _calls_with_url(schema: Mapping[str, Any], names: list[tuple[str, bool]], url: str) -> list[dict[str, Any]]:
    base = simplest_arguments(schema)
    calls = [{**base, name: [url] if is_list else url} for name, is_list in names]
    return [call for call in calls if valid(schema, call)]


def shaped_calls(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The simplest valid call with each optional URL-shaped parameter given a URL (a list of one
    for a list of URLs): a fetch tool whose URL is optional reaches its request on any example budget."""
    required_names = set(required(schema))
    optional = [(name, is_list) for name, is_list in _url_parameters(schema) if name not in required_names]
    return _calls_with_url(schema, optional, _SHAPED_VALUES["url"][0])


#: URLs of the kit's fault origin (FAULT_ORIGIN, a ``.invalid`` name no resolver answers, which the plugin's
#: network guard sends to a server of the kit's inside the plugin's process): an origin answering 5xx and a
#: connection reset after the request, transport faults the seed names (ERR-3) that a refused connection
#: does not show (a tool that checks ``response.ok`` and answers the status as text throws nothing when its
#: request is refused, as fetch throws for it). Fixed, so a finding's reproduction is the same on every run.
FAULT_URLS: tuple[str, ...] = (f"http://{FAULT_ORIGIN}/status/503", f"http://{FAULT_ORIGIN}/reset")


def fault_origin_calls(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The simplest valid call with each URL-shaped parameter, required or optional, pointed at each of
    :data:`FAULT_URLS`: the faults the ERR-3/ERR-4 drive injects."""
    names = _url_parameters(schema)
    return [call for url in FAULT_URLS for call in _calls_with_url(schema, names, url)]


# -- breaking calls -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Breaking:
    """A call whose arguments break the schema, and how: the parameters a refusal should name."""

    kind: str  # "unknown-only", "wrong-type", "missing", "unknown-beside" or "mixed"
    arguments: dict[str, Any]
    unknown: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def offending(self) -> tuple[str, ...]:
        return self.unknown + self.missing + self.wrong


def forbids_extras(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` refuses parameters it does not declare (``additionalProperties: false``).
    TypeBox's ``Type.Object`` allows them unless told otherwise."""
    return schema.get("additionalProperties") is False


def can_break(schema: Mapping[str, Any]) -> bool:
    """Whether some argument object breaks ``schema``: a parameter of a definite type to hand a
    wrong one, a required one to leave out, or extras it forbids."""
    return (
        forbids_extras(schema)
        or bool(required(schema))
        or any(not accepts_anything(p) for p in properties(schema).values())
    )


def classify(schema: Mapping[str, Any], args: Any) -> Breaking | None:
    """How ``args`` breaks ``schema`` (None when it does not). Unknown parameters break it only
    where it forbids extras; elsewhere a call of unknown parameters alone is valid, and refusing it
    is NAME-6's (through the host), not a validation the schema asks for."""
    if not isinstance(args, Mapping):
        return None
    props = properties(schema)
    unknown = tuple(k for k in args if k not in props)
    missing = tuple(k for k in required(schema) if k not in args)
    wrong = tuple(k for k, v in args.items() if k in props and not valid(props[k], v))
    if not ((unknown and forbids_extras(schema)) or missing or wrong):
        return None
    if unknown and not any(k in props for k in args):
        kind = "unknown-only"
    elif unknown and not (missing or wrong):
        kind = "unknown-beside"
    elif wrong and not (unknown or missing):
        kind = "wrong-type"
    elif missing and not (unknown or wrong):
        kind = "missing"
    else:
        kind = "mixed"
    return Breaking(kind, dict(args), unknown, missing, wrong)


def accepts_anything(schema: Any) -> bool:
    """Whether a property schema takes a value of every JSON type (Type.Any, Type.Unknown)."""
    return all(valid(schema, v) for v in (None, True, 1, 1.5, "x", [], {}))


def _other_type_value(schema: Any) -> st.SearchStrategy[Any]:
    """Values of a JSON type the property does not accept."""
    return json_values(1).filter(lambda v: not valid(schema, v))


def unknown_names(schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
    props = properties(schema)
    # "reason" is the host's own status field (REASON-4): never unknown to an internal tool.
    taken = set(props) | {"reason"}
    names = st.sampled_from(_UNKNOWN_NAMES) | st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True)
    return names.filter(lambda n: n not in taken)


@per_schema
def unknown_only_for(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(unknown_names(schema), json_values(1), min_size=1, max_size=2)


@per_schema
def breaking_call_arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects that break the schema: one wrong type, one missing parameter, or an
    unknown-only call where that breaks it (a required parameter left out, or extras forbidden).
    Nothing (``st.nothing()``) for a schema no argument object breaks (:func:`can_break`).
    """
    if not can_break(schema):
        return st.nothing()
    options: list[st.SearchStrategy[dict[str, Any]]] = []
    if forbids_extras(schema) or required(schema):
        options.append(unknown_only_for(schema))
    public: st.SearchStrategy[dict[str, Any]] | None = None
    if _public_covers(schema):
        try:
            public = _public.breaking_arguments_for(schema).map(sanitize_paths)
        except ValueError:  # nothing it can break: ours below
            public = None
    if public is not None:
        options.append(public)
    else:
        options.extend(_own_breaking(schema))
    return st.one_of(options).filter(lambda a: classify(schema, a) is not None)


def _own_breaking(schema: Mapping[str, Any]) -> list[st.SearchStrategy[dict[str, Any]]]:
    props = {k: v for k, v in properties(schema).items() if not accepts_anything(v)}
    options: list[st.SearchStrategy[dict[str, Any]]] = []
    base = call_arguments_for(schema)
    if props:

        def wrong(draw_args: tuple[dict[str, Any], str, Any]) -> dict[str, Any]:
            args, key, value = draw_args
            return {**args, key: value}

        options.append(
            st.sampled_from(sorted(props))
            .flatmap(lambda key: st.tuples(base, st.just(key), _other_type_value(props[key])))
            .map(wrong)
        )
    req = required(schema)
    if req:
        options.append(
            st.tuples(base, st.sampled_from(req)).map(lambda pair: {k: v for k, v in pair[0].items() if k != pair[1]})
        )
    return options


#: Wrong-typed stand-ins tried in turn, first one a property does not accept wins: deterministic, so
#: every parameter is handed a wrong type at least once, whatever the example count.
_WRONG_TYPED: tuple[Any, ...] = (12345, "not-a-value", True, ["not", "a", "value"], {"not": "a value"}, None)


#: The most values of a required choice (an ``action``) whose branch gets wrong-typed calls of its own.
_BRANCHES = 8


def _choices(schema: Any) -> list[Any]:
    """The values a property takes when it is a choice of literals (``enum``, or a union of ``const``)."""
    if not isinstance(schema, Mapping):
        return []
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and all(isinstance(o, Mapping) and "const" in o for o in options):
            return [o["const"] for o in options]
    return []


def _branches(schema: Mapping[str, Any], base: dict[str, Any]) -> list[dict[str, Any]]:
    """The simplest valid call, and the same call with each other value of a required choice: a handler's
    branches (``add``, ``list``) answer differently, and a branch that drops a bad value unchecked shows
    it only by answering as it answers the call without it."""
    bases = [base]
    for key in sorted(required(schema)):
        # The base took one value (the first, or a default): the others are its branches.
        others = [v for v in _choices(properties(schema).get(key)) if v != base.get(key)]
        for value in others[: _BRANCHES - 1]:
            branch = {**base, key: value}
            if valid(schema, branch):
                bases.append(branch)
    return bases


def each_breaking_call(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One call per way to break the schema, around the simplest valid call and each of its branches (a
    required choice's other values): each declared parameter wrong-typed, each required one missing.
    Checked before the generated ones, so a handler that skips validating one parameter, in any
    branch, is caught on any example budget and any seed."""
    base = simplest_arguments(schema)
    if not valid(schema, base):
        return []
    calls: list[dict[str, Any]] = []
    for branch in _branches(schema, base):
        for key, prop in sorted(properties(schema).items()):
            if accepts_anything(prop) or (branch is not base and key in branch):
                continue  # a required parameter wrong-typed is the base's call already
            wrong = [v for v in _WRONG_TYPED if not valid(prop, v)]
            if wrong:
                calls.append({**branch, key: wrong[0]})
    calls.extend({k: v for k, v in base.items() if k != key} for key in sorted(required(schema)))
    return [call for call in calls if classify(schema, call) is not None]


def breaking_cases_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Breaking]:
    return breaking_call_arguments_for(schema).map(lambda a: classify(schema, a))  # type: ignore[arg-type,return-value]


@per_schema
def full_call_arguments_with_a_name_for(schema: Mapping[str, Any]) -> st.SearchStrategy[list[Any]]:
    """``[arguments, name]``: valid arguments carrying every declared parameter, and one declared
    name (a list, not a tuple: its draws are plain JSON, so they are kept across runs)."""
    return st.tuples(full_call_arguments_for(schema), st.sampled_from(list(properties(schema)))).map(list)


def stale_name(name: str) -> str:
    """A stale or aliased spelling of a declared parameter name."""
    if name == "file_path":
        return "filePath"
    if name == "path":
        return "dir"
    if "_" in name:
        head, *rest = name.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)
    camel = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    if camel != name:
        return camel
    return name + "_old"
