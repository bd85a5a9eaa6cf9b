"""The kit's own measures of the caps (pytest_toolconformance.measures) agree with the reference
host's, an implementation written apart: the cut of a description, JSON.stringify and a definition's bytes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pytest_toolconformance
from pytest_toolconformance import measures
from reference_host.schemas import cap_utf8, json_bytes
from reference_host.typebox import to_json
from tests.kit.json_draws import JSON_VALUES, SETTINGS
from tests.kit.test_import_cycles import PACKAGES, REPO, import_graph, modules_under


@SETTINGS
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",))), st.integers(min_value=0, max_value=40))
def test_utf8_prefix_is_the_longest_whole_character_prefix(text: str, limit: int) -> None:
    prefix = measures.utf8_prefix(text, limit)
    assert text.startswith(prefix)
    assert measures.utf8_len(prefix) <= limit
    if prefix != text:
        assert measures.utf8_len(prefix + text[len(prefix)]) > limit  # the next character would not fit
    assert prefix == cap_utf8(text, limit)  # the kit's oracle agrees with the reference host


@SETTINGS
@given(JSON_VALUES)
def test_js_stringify_matches_the_reference_writer(value: Any) -> None:
    assert measures.js_stringify(value) == to_json(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e-7, "1e-7"),
        (1e-5, "0.00001"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (0.1, "0.1"),
        ({"b": 1, "2": 2, "10": 3, "a": 4}, '{"2":2,"10":3,"b":1,"a":4}'),
        ("é\u2028", '"é\u2028"'),
    ],
)
def test_js_stringify_writes_numbers_and_keys_as_javascript_does(value: Any, text: str) -> None:
    assert measures.js_stringify(value) == text


@SETTINGS
@given(JSON_VALUES, JSON_VALUES)
def test_same_js_text_is_the_equality_of_the_js_texts(a: Any, b: Any) -> None:
    assert measures.same_js_text(a, b) is (measures.js_stringify(a) == measures.js_stringify(b))
    assert measures.same_js_text(a, a)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1, 1.0, True),
        (True, 1, False),
        ({"a": 1, "2": 2}, {"2": 2, "a": 1}, True),  # array-index keys come first in JS either way
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),
        ([0.0], [-0.0], True),
    ],
)
def test_same_js_text_where_python_and_js_texts_part(a: Any, b: Any, same: bool) -> None:
    assert measures.same_js_text(a, b) is same


@SETTINGS
@given(st.text(min_size=1, max_size=30), st.text(max_size=3000), JSON_VALUES)
def test_definition_bytes_is_the_cap2_reading(name: str, description: str, parameters: Any) -> None:
    expected = json_bytes({"name": name, "description": cap_utf8(description, 1000), "parameters": parameters})
    assert measures.definition_bytes(name, description, parameters) == expected


@SETTINGS
@given(JSON_VALUES)
def test_json_bytes_counts_what_the_reference_host_counts(value: Any) -> None:
    assert measures.json_bytes(value) == json_bytes(value)


@pytest.mark.parametrize("value", [0.0, -0.0, 2.0, 1e21, [3.0], {"a": 4.0}])
def test_json_bytes_of_integral_floats_anywhere(value: Any) -> None:
    # JSON.stringify writes 2.0 as "2": a bare one ends the text, with no "," "]" or "}" after it.
    assert json_bytes(value) == measures.json_bytes(value) == len(measures.js_stringify(value))


def test_the_kit_measures_with_its_own_code_only() -> None:
    """The face states the caps once, as the kit's own measures; neither they nor the strategies that
    build sizes at the caps reach the reference host, the implementation the kit judges."""
    assert pytest_toolconformance.measures is measures and "measures" in pytest_toolconformance.__all__
    assert [name for name in pytest_toolconformance.__all__ if name.isupper()] == []  # no cap stated twice
    graph = import_graph(modules_under(REPO, PACKAGES))
    measuring = [
        "pytest_toolconformance.measures",
        *(m for m in graph if m.split(".")[:2] == ["pytest_toolconformance", "strategies"]),
    ]
    reached = set(measuring)
    while True:
        more = {t for m in reached for t in graph.get(m, ()) if t not in reached}
        if not more:
            break
        reached |= more
    assert len(measuring) >= 5 and not {m for m in reached if m.split(".")[0] == "reference_host"}, sorted(reached)
