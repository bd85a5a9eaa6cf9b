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


def test_a_path_whose_own_words_are_open_takes_its_role_from_the_tool() -> None:
    """clawvault's `memory_get(relPath)`: "Read a specific memory file", the path "from a search result"."""
    schema = _schema(["relPath"], relPath="Relative path from a memory_search result.")
    found = name_findings("memory_get", schema, "Read a specific memory file or line range from the vault.")
    assert _rules(found, advisory=False) == [("NAME-1", "relPath")]
    by_example = _schema(["relPath"], relPath="Relative path from a search result (e.g. memory/2026-01-01.md).")
    assert _rules(name_findings("memory_get", by_example), advisory=False) == [("NAME-1", "relPath")]


def test_a_file_named_with_its_extension_in_the_words_is_a_file_target() -> None:
    """camofox's `camofox_import_cookies(cookiesPath)`: "Relative path to a Netscape-format cookies.txt file":
    a dotted file name and a hyphenated word between "path to a" and "file" leave it a file's path."""
    schema = _schema(["cookiesPath"], cookiesPath="Relative path to a Netscape-format cookies.txt file")
    assert _rules(name_findings("camofox_import_cookies", schema), advisory=False) == [("NAME-1", "cookiesPath")]
    described = _schema(["configPath"], configPath="Path to the repository's JSON config file. Read once.")
    assert _rules(name_findings("load_config", described), advisory=False) == [("NAME-1", "configPath")]
    folder = _schema(["basePath"], basePath="Path to the folder of the Netscape-format cookies.txt files")
    assert _rules(name_findings("import_all", folder), advisory=False) != [("NAME-1", "basePath")]


def test_the_tools_words_decide_nothing_they_do_not_say() -> None:
    """Files in the plural, two open paths, an optional one, or a path its own words already placed."""
    open_path = _schema(["relPath"], relPath="Relative path from a search result.")
    assert name_findings("memory_list", open_path, "List the memory files under a folder.") == []
    assert name_findings("memory_get", open_path, "Search memory for snippets.") == []
    two = _schema(["fromPath", "toPath"], fromPath="Where it is now.", toPath="Where it goes.")
    assert name_findings("memory_move", two, "Move a memory file.") == []
    optional = _schema([], relPath="Relative path from a search result.")
    assert name_findings("memory_get", optional, "Read a specific memory file.") == []
    scope = _schema(["path"], path="Directory to search.")
    assert _rules(name_findings("Grep", scope, "Read a file's matches."), advisory=False) == []
