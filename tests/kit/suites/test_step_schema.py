"""The compiled check of a step schema says valid exactly where jsonschema's Draft 2020-12 validator
does: over generated schemas of the keywords it compiles and generated answers, over every step
schema of the scenario files, and it declines what it does not evaluate."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolconformance.suites.host import step_schema
from pytest_toolconformance.suites.host.scenarios import iter_scenario_files

NAMES = st.sampled_from(["a", "b", "name", "tools", "x/y", "~t"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 1.5, -2.0]),
    st.sampled_from(["", "a", "ab", "mcp__x", "Aé"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(NAMES, inner, max_size=4)),
    max_leaves=12,
)


def _schemas() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        keyword = st.one_of(
            st.builds(
                lambda v: {"type": v},
                st.sampled_from(list(step_schema._TYPES))
                | st.lists(st.sampled_from(list(step_schema._TYPES)), min_size=1, max_size=3, unique=True),
            ),  # noqa: E501
            st.builds(lambda v: {"properties": v}, st.dictionaries(NAMES, inner, max_size=3)),
            st.builds(lambda v: {"required": v}, st.lists(NAMES, max_size=3, unique=True)),
            st.builds(
                lambda p, a: {"properties": p, "additionalProperties": a},
                st.dictionaries(NAMES, inner, max_size=2),
                inner,
            ),  # noqa: E501
            st.builds(lambda v: {"propertyNames": v}, inner),
            st.builds(lambda v: {"items": v}, inner),
            st.builds(lambda p, i: {"prefixItems": p, "items": i}, st.lists(inner, max_size=2), inner),
            st.builds(lambda v: {"prefixItems": v}, st.lists(inner, max_size=2)),
            st.builds(lambda v: {"contains": v}, inner),
            st.builds(
                lambda k, n: {k: n},
                st.sampled_from(["minItems", "maxItems", "minLength", "maxLength"]),
                st.integers(0, 3),
            ),  # noqa: E501
            st.builds(lambda v: {"const": v}, VALUES),
            st.builds(lambda v: {"enum": v}, st.lists(VALUES, min_size=1, max_size=3)),
            st.builds(lambda v: {"pattern": v}, st.sampled_from(["^a", "b$", "^mcp__", "é", "^$"])),
            st.builds(lambda v: {"not": v}, inner),
            st.builds(
                lambda k, v: {k: v},
                st.sampled_from(["allOf", "anyOf", "oneOf"]),
                st.lists(inner, min_size=1, max_size=3),
            ),  # noqa: E501
            st.builds(lambda i, t, e: {"if": i, "then": t, "else": e}, inner, inner, inner),
            st.builds(lambda i, t: {"if": i, "then": t}, inner, inner),
        )
        return st.lists(keyword, min_size=1, max_size=3).map(
            lambda parts: {k: v for part in parts for k, v in part.items()}
        )

    return st.recursive(st.one_of(st.booleans(), st.just({})), extend, max_leaves=8)


def _with_defs(schema: Any, defs: dict[str, Any]) -> Any:
    if not isinstance(schema, dict):
        return schema
    refs = [{"$ref": "#/$defs/" + name.replace("~", "~0").replace("/", "~1")} for name in defs]  # JSON Pointer
    return {**schema, "$defs": defs, "allOf": [*schema.get("allOf", []), *refs]}


@settings(max_examples=400, deadline=None)
@given(
    schema=_schemas(),
    defs=st.dictionaries(st.sampled_from(["d", "e~f", "g/h"]), _schemas(), max_size=2),
    answers=st.lists(VALUES, min_size=1, max_size=6),
)
def test_valid_exactly_where_jsonschema_says_valid(schema: Any, defs: dict[str, Any], answers: list[Any]) -> None:
    schema = _with_defs(schema, defs) if defs else schema
    check = step_schema.compiled(schema)
    assert check is not None, schema
    validator = jsonschema.Draft202012Validator(schema)
    for answer in answers:
        assert check(answer) == validator.is_valid(answer), (schema, answer)


def test_every_step_schema_of_the_scenario_files_compiles_and_agrees() -> None:
    schemas: list[Any] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            expect = node.get("expect")
            if isinstance(expect, dict) and "schema" in expect:
                schemas.append(expect["schema"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    for path in iter_scenario_files():
        collect(json.loads(path.read_text("utf-8")))
    assert len(schemas) > 100
    answers = [
        {},
        [],
        None,
        "x",
        {"tools": []},
        {"tools": [{"name": "Read", "parameters": {"type": "object"}}]},
        {"isError": False, "content": [{"type": "text", "text": "ok"}]},
        {"error": {"kind": "refused"}},
    ]
    for schema in schemas:
        check = step_schema.compiled(schema)
        assert check is not None, f"a step schema the compiled check declines: {json.dumps(schema)[:300]}"
        validator = jsonschema.Draft202012Validator(schema)
        for answer in answers:
            assert check(answer) == validator.is_valid(answer), (schema, answer)


def test_what_it_does_not_evaluate_is_left_to_jsonschema() -> None:
    for schema in (
        {"minimum": 1},
        {"patternProperties": {"^a": {}}},
        {"$ref": "https://example.com/other.json"},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
        {"properties": {"a": {"format": "email"}}},
        {"contains": {}, "minContains": 2},
    ):
        assert step_schema.compiled(schema) is None, schema


def test_types_and_equality_read_numbers_and_booleans_as_jsonschema_does() -> None:
    tricky = [0, 1, 1.0, 1.5, -2.0, True, False, None, "1", "", [], {}, [1], [1.0], [True], {"a": 1}, {"a": 1.0}]
    schemas: list[Any] = [{"type": name} for name in step_schema._TYPES]
    schemas += [{"const": value} for value in tricky] + [{"enum": [value, "other"]} for value in tricky]
    for schema in schemas:
        check = step_schema.compiled(schema)
        assert check is not None
        validator = jsonschema.Draft202012Validator(schema)
        for answer in tricky:
            assert check(answer) == validator.is_valid(answer), (schema, answer)
