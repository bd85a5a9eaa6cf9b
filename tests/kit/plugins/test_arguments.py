"""Arguments that reach the code (pytest_toolconformance/plugins/arguments.py)."""

from __future__ import annotations

from pytest_toolconformance.plugins.arguments import shaped_calls


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
