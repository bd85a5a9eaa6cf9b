"""The core tools the seam names, with their core read-only classification (NAME-1..4).

Parameter names follow the seam: ``file_path`` for a single-file target, ``path`` for a directory
or search scope, ``output_path`` for EditImage's second file, ``cwd`` for Bash's working directory.
The handlers act on the calling session's sandbox through :mod:`reference_host.context`.
"""

from __future__ import annotations

import functools
from typing import Any

from .context import require_call
from .tools import Tool, define_tool, text_result


def _s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


FILE_PATH = _s("Absolute guest path of the file.")
SCOPE_PATH = _s("Directory or file to search in (absolute guest path); defaults to the workspace root.")

CORE_SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "Read": (
        "Read a file from the workspace.",
        _obj(
            {
                "file_path": FILE_PATH,
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1},
            },
            ["file_path"],
        ),
    ),
    "Write": (
        "Write a file; an existing file must have been read first.",
        _obj({"file_path": FILE_PATH, "content": _s("The full new content.")}, ["file_path", "content"]),
    ),
    "Edit": (
        "Replace one exact string in a file that was read first.",
        _obj(
            {"file_path": FILE_PATH, "old_string": _s("Text to replace."), "new_string": _s("Replacement.")},
            ["file_path", "old_string", "new_string"],
        ),
    ),
    "Glob": ("Find files by glob pattern.", _obj({"pattern": _s("Glob pattern."), "path": SCOPE_PATH}, ["pattern"])),
    "Grep": (
        "Search file contents by regular expression.",
        _obj({"pattern": _s("Regular expression."), "path": SCOPE_PATH}, ["pattern"]),
    ),
    "Search": (
        "Search the workspace for text.",
        _obj({"query": _s("Text to look for."), "path": SCOPE_PATH}, ["query"]),
    ),
    "ListDir": ("List a directory.", _obj({"path": _s("Directory to list (absolute guest path).")}, ["path"])),
    "FileInfo": (
        "Describe a file or directory.",
        _obj({"path": _s("File or directory (absolute guest path).")}, ["path"]),
    ),
    "GitStatus": ("Show the git status of a repository in the workspace.", _obj({"path": SCOPE_PATH}, [])),
    "Bash": (
        "Run a shell command in the workspace.",
        _obj({"command": _s("The command."), "cwd": _s("Working directory (absolute guest path).")}, ["command"]),
    ),
    "ToolSearch": (
        "Find and load deferred tools by name or keyword.",
        _obj({"query": _s("Tool name, 'select:A,B', or keywords.")}, ["query"]),
    ),
    "ShareFile": ("Share a workspace file with the user.", _obj({"file_path": FILE_PATH}, ["file_path"])),
    "ShareImage": (
        "Share an image: a workspace file, or the latest image produced.",
        _obj(
            {"file_path": FILE_PATH, "latest": {"type": "boolean", "description": "Share the latest image instead."}},
            [],
        ),
    ),
    "EditImage": (
        "Edit an image file; writes the result to output_path or over the input.",
        _obj(
            {"file_path": FILE_PATH, "prompt": _s("What to change."), "output_path": _s("Where to write the result.")},
            ["file_path", "prompt"],
        ),
    ),
    "WorkflowStart": (
        "Start a workflow from its definition file.",
        _obj({"file_path": FILE_PATH, "inputs": {"type": "object", "properties": {}}}, ["file_path"]),
    ),
}

#: Core read-only tools (src/brain/toolMetadata.ts CORE_TOOL_DEFAULTS, as the kit reads it).
CORE_READ_ONLY = frozenset({"Read", "Glob", "Grep", "Search", "ListDir", "FileInfo", "GitStatus", "ToolSearch"})
#: Host plan defaults: tools plan mode admits beyond the read-only set. Write and Edit run, but the
#: sandbox admits only the plan file on a Plan turn; Bash runs under the non-destructive boundary.
PLAN_DEFAULTS = frozenset({"Write", "Edit", "Bash"})


def _handler(name: str):  # noqa: ANN202 - returns a handler closure
    def execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        ctx = require_call(f"core tool {name}")
        return ctx.session.run_core_tool(name, call_id, params)

    return execute


@functools.cache
def core_tools() -> tuple[Tool, ...]:
    """The definitions of every core tool, built once a process: a Tool is frozen and its handler reads
    the session from the call's context, so every host can hold the same ones."""
    return tuple(
        define_tool(name=name, label=name, description=description, parameters=schema, execute=_handler(name))
        for name, (description, schema) in CORE_SCHEMAS.items()
    )


def share_image_choice(params: dict[str, Any]) -> dict[str, Any] | None:
    """ShareImage's file-or-latest choice, checked in the handler (SCHEMA-3)."""
    has_file = isinstance(params.get("file_path"), str) and params["file_path"] != ""
    latest = params.get("latest") is True
    if has_file == latest:
        return text_result(
            "ShareImage needs exactly one of file_path (an image file to share) or latest: true "
            "(share the latest image); call it again with one of them."
        )
    return None
