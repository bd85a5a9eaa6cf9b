"""A scenario step's ``expect.schema``, compiled once into a check of an answer.

jsonschema walks a schema anew for every answer, building a validator for each part it descends
into; over a compose answer (the catalog, the payload, every tool's parameters) that walk was most
of a scenario check's time. :func:`compiled` turns a schema into a function that says whether an
answer is valid exactly as ``jsonschema.Draft202012Validator(schema).is_valid`` says it, for the
keywords the scenario files use (:data:`KEYWORDS`); a schema with any other keyword, or a ``$ref``
other than to its own ``#/$defs/...``, is not compiled (None) and jsonschema checks it. jsonschema
still words every failure: the compiled check only spares it the answers that pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

try:  # jsonschema's own equality (1 is not true, 1.0 is 1), so const and enum compare as it does
    from jsonschema._utils import equal as _equal
except ImportError:  # pragma: no cover - a jsonschema that moved it: nothing is compiled
    _equal = None

Check = Callable[[Any], bool]

#: The keywords a compiled check evaluates, and those that assert nothing (annotations).
KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "propertyNames", "items", "prefixItems",
        "contains", "minItems", "maxItems", "const", "enum", "pattern", "minLength", "maxLength",
        "not", "allOf", "anyOf", "oneOf", "if", "then", "else", "$ref", "$defs",
    }
)  # fmt: skip
ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default"})
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _NotCompiled(Exception):
    """The schema uses something the compiled check does not evaluate."""


def compiled(schema: Any) -> Check | None:
    """``schema``'s check (answer -> valid), or None where jsonschema must check it."""
    if _equal is None or (isinstance(schema, Mapping) and schema.get("$schema", _DIALECT) != _DIALECT):
        return None
    try:
        return _Compiler(schema).compile(schema)
    except _NotCompiled:
        return None


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: JSON Schema's types as jsonschema's Draft 2020-12 type checker reads them.
_TYPES: dict[str, Check] = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}


class _Compiler:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda _: True
        if schema is False:
            return lambda _: False
        if not isinstance(schema, Mapping):
            raise _NotCompiled
        unknown = set(schema) - KEYWORDS - ANNOTATIONS - ({"$schema"} if schema is self.root else set())
        if unknown:
            raise _NotCompiled
        checks = [self._keyword(schema, key) for key in schema if key in KEYWORDS and key not in ("then", "else")]
        checks = [c for c in checks if c is not None]
        if len(checks) == 1:
            return checks[0]
        return lambda value: all(check(value) for check in checks)

    def _ref(self, ref: Any) -> Check:
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/$defs/")):
            raise _NotCompiled
        if ref not in self.refs:
            self.refs[ref] = lambda value: resolved(value)  # a recursive $ref meets itself while compiled
            target: Any = self.root
            for part in ref[2:].split("/") if ref != "#" else ():
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or part not in target:
                    raise _NotCompiled
                target = target[part]
            resolved = self.compile(target)
            self.refs[ref] = resolved
        return self.refs[ref]

    def _keyword(self, schema: Mapping[str, Any], key: str) -> Check | None:  # noqa: C901 - one branch a keyword
        arg = schema[key]
        if key == "$defs":
            return None
        if key == "$ref":
            return self._ref(arg)
        if key == "type":
            names = [arg] if isinstance(arg, str) else arg
            if not isinstance(names, list) or not all(n in _TYPES for n in names):
                raise _NotCompiled
            tests = [_TYPES[n] for n in names]
            return lambda value: any(test(value) for test in tests)
        if key == "properties":
            if not isinstance(arg, Mapping):
                raise _NotCompiled
            subs = {name: self.compile(sub) for name, sub in arg.items()}
            return lambda value: (
                not isinstance(value, dict) or all(check(value[name]) for name, check in subs.items() if name in value)
            )
        if key == "required":
            names = list(arg)
            return lambda value: not isinstance(value, dict) or all(name in value for name in names)
        if key == "additionalProperties":
            known = set(schema.get("properties") or ())
            extra = self.compile(arg)
            return lambda value: (
                not isinstance(value, dict) or all(extra(item) for name, item in value.items() if name not in known)
            )
        if key == "propertyNames":
            names_check = self.compile(arg)
            return lambda value: not isinstance(value, dict) or all(names_check(name) for name in value)
        if key == "items":
            item_check = self.compile(arg)
            skip = len(schema.get("prefixItems") or ())
            return lambda value: not isinstance(value, list) or all(item_check(item) for item in value[skip:])
        if key == "prefixItems":
            firsts = [self.compile(sub) for sub in arg]
            return lambda value: (
                not isinstance(value, list) or all(check(item) for check, item in zip(firsts, value, strict=False))
            )
        if key == "contains":
            member = self.compile(arg)
            return lambda value: not isinstance(value, list) or any(member(item) for item in value)
        if key in ("minItems", "maxItems", "minLength", "maxLength"):
            if not _is_integer(arg):
                raise _NotCompiled
            bound, kind = arg, list if key.endswith("Items") else str
            if key.startswith("min"):
                return lambda value: not isinstance(value, kind) or len(value) >= bound
            return lambda value: not isinstance(value, kind) or len(value) <= bound
        if key == "const":
            return lambda value: _equal(value, arg)
        if key == "enum":
            options = list(arg)
            return lambda value: any(_equal(value, option) for option in options)
        if key == "pattern":
            found = re.compile(arg).search
            return lambda value: not isinstance(value, str) or found(value) is not None
        if key == "not":
            negated = self.compile(arg)
            return lambda value: not negated(value)
        if key in ("allOf", "anyOf", "oneOf"):
            parts = [self.compile(sub) for sub in arg]
            if key == "allOf":
                return lambda value: all(part(value) for part in parts)
            if key == "anyOf":
                return lambda value: any(part(value) for part in parts)
            return lambda value: sum(1 for part in parts if part(value)) == 1
        if key == "if":
            condition = self.compile(arg)
            then = self.compile(schema.get("then", True))
            otherwise = self.compile(schema.get("else", True))
            return lambda value: then(value) if condition(value) else otherwise(value)
        raise _NotCompiled
