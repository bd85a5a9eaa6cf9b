"""Breaks NAME-1: the primary single-file target is called filename instead of file_path."""

from __future__ import annotations

from typing import Any

from plugin_check import refusal

from reference_host import define_tool, text_result
from reference_host.typebox import Type


def _read(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    refused = refusal(params, {"filename": ("string", False)})
    if refused:
        return text_result(refused)
    try:
        with open(params["filename"], encoding="utf-8") as handle:
            return text_result(handle.read())
    except (OSError, UnicodeDecodeError) as exc:
        return text_result(f"filename {params['filename']} cannot be read ({type(exc).__name__})")


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(
        name="ReadNote", label="Read note", description="Reads one note file.",
        parameters=Type.Object({"filename": Type.String(description="The file to read.")}),
        execute=_read,
    ))
