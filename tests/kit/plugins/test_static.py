"""NAME-1..5 read from a schema alone (pytest_toolconformance/plugins/static.py): what fails, what is advised."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.plugins.static import name_findings


def _schema(required: list[str], **props: str) -> dict[str, Any]:
    return {"type": "object", "required": required,
            "properties": {name: {"type": "string", "description": text} for name, text in props.items()}}


def _rules(findings: list[Any], *, advisory: bool) -> list[tuple[str, str]]:
    return sorted((f.rule, f.parameter) for f in findings if f.advisory is advisory)


def test_an_optional_output_beside_no_file_target_is_advised_not_named_file_path() -> None:
    """pi-subagents' `output`: a delegation tool that may also write its answer to a file."""
    found = name_findings("Delegate", _schema(["task"], task="What to do.", output="Output filename/path to write to."))
    assert _rules(found, advisory=False) == []
    assert _rules(found, advisory=True) == [("NAME-3", "output")]


def test_a_required_output_is_the_tools_target() -> None:
    found = name_findings("Save", _schema(["output"], text="What to save.", output="Output file to write."))
    assert _rules(found, advisory=False) == [("NAME-1", "output")]


def test_a_directory_beside_a_file_target_is_advised_a_lone_one_fails() -> None:
    """pi-markdown-preview's `resourcePath` beside its source file; a search tool's `dir` alone."""
    beside = name_findings("Export", _schema(["file_path"], file_path="The Markdown file to render.",
                                             resourceDir="Base directory for resolving relative images."))
    assert _rules(beside, advisory=False) == [] and _rules(beside, advisory=True) == [("NAME-2", "resourceDir")]
    alone = name_findings("Search", _schema([], dir="Directory to search."))
    assert _rules(alone, advisory=False) == [("NAME-2", "dir")]
