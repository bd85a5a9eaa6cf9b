"""Arguments that reach the code (pytest_toolconformance/plugins/arguments.py)."""

from __future__ import annotations

from pytest_toolconformance.plugins.arguments import FAULT_URLS, fault_origin_calls, shaped_calls


def test_each_optional_url_parameter_gets_a_url_beside_the_simplest_call() -> None:
    schema = {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"type": "string"},
            "url": {"type": "string", "description": "A URL to fetch."},
            "urls": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string"},
            "homepage": {"type": "string", "format": "uri"},
        },
    }
    assert shaped_calls(schema) == [
        {"id": "hello", "homepage": "https://example.com/"},
        {"id": "hello", "url": "https://example.com/"},
        {"id": "hello", "urls": ["https://example.com/"]},
    ]


def test_a_schema_without_url_parameters_has_none() -> None:
    assert shaped_calls({"type": "object", "properties": {"q": {"type": "string"}}}) == []


def test_each_url_parameter_is_pointed_at_each_fault_of_the_fault_origin() -> None:
    schema = {
        "type": "object",
        "required": ["url"],
        "properties": {
            "url": {"type": "string", "description": "The URL of the page."},
            "mirrors": {"type": "array", "items": {"type": "string", "format": "uri"}},
            "query": {"type": "string"},
        },
    }
    answer, reset = FAULT_URLS
    assert (answer, reset) == ("http://origin.toolconformance.invalid/status/503",
                               "http://origin.toolconformance.invalid/reset")
    assert fault_origin_calls(schema) == [
        {"url": "https://example.com/", "mirrors": [answer]},
        {"url": answer},
        {"url": "https://example.com/", "mirrors": [reset]},
        {"url": reset},
    ]
    # A URL the schema's pattern refuses is no valid call, so no such call is made.
    assert fault_origin_calls({"type": "object", "properties": {"url": {"type": "string", "pattern": "^https:"}}}) == []
    assert fault_origin_calls({"type": "object", "properties": {"q": {"type": "string"}}}) == []
