"""``reference_host.typebox`` serializes byte for byte like TypeBox 1.x (npm ``typebox``).

Each case is written once as a ``Call`` tree; it yields both the Python ``Type.*`` call and the JS source
``Type.*(...)``. One Node.js process (``tests/subjects/js_support/typebox_dump.mjs``) evaluates all JS sources and
returns ``JSON.stringify`` of each, compared here with ``json.dumps(..., separators=(",", ":"),
ensure_ascii=False)`` and with ``to_json``.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_host.typebox import Type, to_json
from tests.paths import JS_SUPPORT, TESTS

DUMP_SCRIPT = JS_SUPPORT / "typebox_dump.mjs"
TYPEBOX_PACKAGE = TESTS / "node_modules" / "typebox" / "package.json"
INSTALL_HINT = "run `npm ci --prefix tests` to install typebox into tests/node_modules"


@dataclass(frozen=True)
class Call:
    """One ``Type.<ctor>(*args, **options)`` call, renderable as Python and as JS."""

    ctor: str
    args: tuple[Any, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)

    def py(self) -> Any:
        """Run the call against ``reference_host.typebox.Type``."""
        return getattr(Type, self.ctor)(*(_py_arg(a) for a in self.args), **self.options)

    def js(self) -> str:
        """The same call as JS source (``Type.<ctor>(args, {options})``)."""
        parts = [_js_arg(a) for a in self.args]
        if self.options:
            parts.append(_js_arg(self.options))
        return f"Type.{self.ctor}({', '.join(parts)})"


class _T:
    """``T.Object(...)`` builds a ``Call`` with the same shape as ``Type.Object(...)``."""

    def __getattr__(self, ctor: str) -> Any:
        return lambda *args, **options: Call(ctor, args, options)


T = _T()


def _py_arg(value: Any) -> Any:
    if isinstance(value, Call):
        return value.py()
    if isinstance(value, dict):
        return {k: _py_arg(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_py_arg(v) for v in value]
    return value


def _js_arg(value: Any) -> str:
    """JS source for a value: calls, object literals, arrays; JSON (ASCII, NaN/Infinity) for scalars."""
    if isinstance(value, Call):
        return value.js()
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_js_arg(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_js_arg(v) for v in value) + "]"
    return json.dumps(value)  # NaN, Infinity and -Infinity are JS identifiers too


@dataclass(frozen=True)
class Case:
    id: str
    call: Call
    # False where plain json.dumps cannot match JS (non-integral floats below 1e-4); to_json still must.
    dumps_matches: bool = True


LONG_TOOL = T.Object(
    {
        "path": T.String(description="File to read, relative to the workspace", minLength=1),
        "offset": T.Optional(T.Integer(description="First line (1-based)", minimum=1)),
        "limit": T.Optional(T.Integer(minimum=1, maximum=10_000, default=2000)),
        "mode": T.Optional(T.Union([T.Literal("text"), T.Literal("bytes")], default="text")),
    },
    additionalProperties=False,
)

CASES: list[Case] = [
    Case("string-plain", T.String()),
    Case("string-options", T.String(description="a name", minLength=1, maxLength=64, pattern="^[a-z]+$")),
    Case("string-unicode-description", T.String(description='héllo ✓ 日本語 😀 \u2028 \u0001 "q" \\ \t end')),
    Case("string-dollar-keys-examples", T.String(**{"$id": "Name", "examples": ["a", "é"], "format": "email"})),
    Case("string-option-overrides-type", T.String(type="x", description="d")),
    Case("number-plain", T.Number()),
    Case("number-float-default-integral", T.Number(default=1.0)),
    Case("number-float-options", T.Number(default=0.5, minimum=0.0, maximum=1.0, multipleOf=0.25)),
    Case("number-option-order-kept", T.Number(maximum=1, description="d", minimum=0)),
    Case("number-negative-zero", T.Number(minimum=-0.0, default=-2.0)),
    Case("number-nan-infinity", T.Number(default=math.nan, maximum=math.inf, minimum=-math.inf)),
    Case("number-large", T.Number(maximum=2.0**60, minimum=-(2**63 - 1), default=1e16, exclusiveMaximum=1e21)),
    Case("number-tiny-floats", T.Number(multipleOf=1e-7, minimum=0.00001, maximum=2.5e-5), dumps_matches=False),
    Case("integer-options", T.Integer(minimum=0, maximum=10, default=3, description="count")),
    Case("integer-float-default", T.Integer(default=5.0, maximum=1e3)),
    Case("boolean-default", T.Boolean(default=False, description="verbose?")),
    Case("array-of-strings", T.Array(T.String(minLength=1), minItems=1, maxItems=5, uniqueItems=True)),
    Case("array-of-objects", T.Array(T.Object({"x": T.Number(), "y": T.Optional(T.Number())}), description="points")),
    Case("array-optional-items", T.Array(T.Optional(T.String()))),
    Case("literal-string", T.Literal("read")),
    Case("literal-int-is-number", T.Literal(1)),
    Case("literal-floats", T.Union([T.Literal(1.5), T.Literal(2.0), T.Literal(-0.0)])),
    Case("literal-bool-options", T.Literal(True, description="always true")),
    Case("literal-option-overrides", T.Literal("a", type="q", const="z")),
    Case(
        "union-of-literals", T.Union([T.Literal("a"), T.Literal("b"), T.Literal("c")], description="abc", default="a")
    ),
    Case("union-mixed", T.Union([T.String(), T.Number(minimum=0), T.Literal(False)])),
    Case("union-single", T.Union([T.String()])),
    Case("union-empty", T.Union([])),
    Case("union-nested-not-flattened", T.Union([T.Union([T.Literal(1), T.Literal(2)]), T.String()])),
    Case("object-empty", T.Object({})),
    Case("object-empty-options", T.Object({}, additionalProperties=False, description="no params")),
    Case("object-all-optional", T.Object({"a": T.Optional(T.String()), "b": T.Optional(T.Boolean())})),
    Case(
        "object-required-order",
        T.Object({"z": T.String(), "a": T.String(), "m": T.Optional(T.String()), "b": T.Integer()}),
    ),
    Case(
        "object-numeric-keys",
        T.Object({"b": T.String(), "10": T.String(), "2": T.Optional(T.String()), "01": T.String(), "-1": T.String()}),
    ),
    Case("object-optional-with-options", T.Object({"a": T.Optional(T.String(description="d"))}, title="T")),
    Case("object-optional-twice", T.Object({"a": T.Optional(T.Optional(T.String()))})),
    Case("object-option-overrides", T.Object({"a": T.String()}, required=["q"], type="thing")),
    Case(
        "object-nested",
        T.Object(
            {
                "outer": T.Object(
                    {
                        "inner": T.Optional(T.Object({"leaf": T.Boolean()}, additionalProperties=False)),
                        "tags": T.Array(T.String()),
                    },
                    description="nested",
                ),
                "note": T.Optional(T.String(description="ünïcødé note")),
            }
        ),
    ),
    Case(
        "object-default-value-reordered",
        T.Object({}, default={"b": 1, "1": 2.0, "list": [1.0, "x", None, True]}, description="defaults"),
    ),
    Case("optional-top-level", T.Optional(T.String(maxLength=3))),
    Case("tool-parameters-realistic", LONG_TOOL),
]

CASE_IDS = [case.id for case in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS), "case ids must be unique"
REJECTED_LITERAL_ID = "~literal-null"


def _node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"node is not on PATH; install Node.js and {INSTALL_HINT}")
    if not TYPEBOX_PACKAGE.is_file():
        pytest.skip(f"tests/node_modules/typebox is missing; {INSTALL_HINT}")
    return node


@pytest.fixture(scope="module")
def typebox_output() -> dict[str, Any]:
    """Run every case's JS source through real TypeBox in one Node.js process."""
    node = _node_or_skip()
    sources = [{"id": case.id, "source": case.call.js()} for case in CASES]
    sources.append({"id": REJECTED_LITERAL_ID, "source": "Type.Literal(null)"})
    payload = json.dumps(sources)
    proc = subprocess.run(
        [node, str(DUMP_SCRIPT)],
        input=payload,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=TESTS,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"typebox_dump.mjs failed ({proc.returncode}):\n{proc.stderr}"
    output = json.loads(proc.stdout)
    assert output["typebox"].startswith("1."), f"expected typebox 1.x, got {output['typebox']}"
    return output


def _js_json(typebox_output: dict[str, Any], case: Case) -> str:
    result = typebox_output["results"][case.id]
    assert result["ok"], f"TypeBox threw for {case.call.js()}: {result['error']}"
    return result["json"]


@pytest.mark.node
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_json_dumps_matches_typebox(case: Case, typebox_output: dict[str, Any]) -> None:
    expected = _js_json(typebox_output, case)
    actual = json.dumps(case.call.py(), separators=(",", ":"), ensure_ascii=False)
    if not case.dumps_matches:
        assert actual != expected, "json.dumps now matches JS here; set dumps_matches=True"
        return
    assert actual == expected, f"JS: {case.call.js()}"


@pytest.mark.node
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_to_json_matches_typebox(case: Case, typebox_output: dict[str, Any]) -> None:
    assert to_json(case.call.py()) == _js_json(typebox_output, case), f"JS: {case.call.js()}"


@pytest.mark.node
def test_literal_null_is_rejected_like_typebox(typebox_output: dict[str, Any]) -> None:
    result = typebox_output["results"][REJECTED_LITERAL_ID]
    assert not result["ok"] and "Invalid Literal value" in result["error"]
    with pytest.raises(TypeError, match="Invalid Literal value"):
        Type.Literal(None)  # type: ignore[arg-type]


# Pinned facts, checked without Node so bare checkouts still cover them.


def test_pinned_object_key_order_and_required() -> None:
    schema = Type.Object({"b": Type.Optional(Type.Number()), "a": Type.String()}, description="o")
    assert to_json(schema) == (
        '{"type":"object","required":["a"],"properties":{"b":{"type":"number"},"a":{"type":"string"}},"description":"o"}'
    )


def test_pinned_empty_object_and_all_optional_omit_required() -> None:
    assert to_json(Type.Object({})) == '{"type":"object","properties":{}}'
    assert "required" not in Type.Object({"a": Type.Optional(Type.String())})


def test_pinned_literal_union_and_float_default() -> None:
    assert to_json(Type.Union([Type.Literal("a"), Type.Literal(1)], default="a")) == (
        '{"anyOf":[{"type":"string","const":"a"},{"type":"number","const":1}],"default":"a"}'
    )
    assert json.dumps(Type.Number(default=1.0), separators=(",", ":")) == '{"type":"number","default":1}'


def test_optional_is_detectable_but_not_serialized() -> None:
    optional = Type.Optional(Type.String())
    assert Type.IsOptional(optional)
    assert not Type.IsOptional(Type.String())
    assert optional == {"type": "string"}
    assert json.dumps(optional) == '{"type": "string"}'
    schema = Type.Object({"a": optional})
    assert Type.IsOptional(schema["properties"]["a"])


@pytest.mark.parametrize("case", [c for c in CASES if c.dumps_matches], ids=lambda c: c.id)
def test_to_json_equals_compact_json_dumps(case: Case) -> None:
    schema = case.call.py()
    assert to_json(schema) == json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
