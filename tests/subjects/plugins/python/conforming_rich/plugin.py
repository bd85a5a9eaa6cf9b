"""A conforming Python plugin with a file target, a search scope, a choice between alternatives,
a network call whose failure is thrown, and identity/access read at execution time."""

from __future__ import annotations

import os
import urllib.parse
import urllib.request
from typing import Any

from reference_host import define_tool, is_transport_failure, mark_transport_failure, text_result
from reference_host.typebox import Type

_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "number": (int, float), "integer": (int,), "boolean": (bool,)}


def refusal(params: Any, spec: dict[str, tuple[str, bool]]) -> str | None:
    """The refusal text for ``params`` against ``{name: (type, optional)}``, or None when they fit.

    It names the parameter at fault, so the model knows what to fix (SCHEMA-4, NAME-6).
    """
    expected = ", ".join(spec) or "no parameters"
    if not isinstance(params, dict):
        return f"arguments must be an object with {expected}"
    for key in params:
        if key not in spec:
            return f"unknown parameter {key}; expected {expected}"
    for key, (kind, optional) in spec.items():
        if key not in params:
            if not optional:
                return f"{key} is required"
            continue
        value = params[key]
        if (isinstance(value, bool) and kind != "boolean") or not isinstance(value, _TYPES[kind]):
            return f"{key} must be a {kind}"
    return None


def register(ctx: Any) -> None:
    def read_note(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        refused = refusal(params, {"file_path": ("string", False)})
        if refused:
            return text_result(refused)
        try:
            with open(params["file_path"], encoding="utf-8") as handle:
                return text_result(handle.read())
        except (OSError, UnicodeDecodeError) as exc:
            # A missing resource is an answer the model can act on (ERR-2), not a throw.
            return text_result(f"file_path {params['file_path']} cannot be read ({type(exc).__name__})")

    def find_notes(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        refused = refusal(params, {"pattern": ("string", False), "path": ("string", True)})
        if refused:
            return text_result(refused)
        try:
            names = sorted(n for n in os.listdir(params.get("path", ".")) if params["pattern"] in n)
        except OSError as exc:
            return text_result(f"path {params.get('path')} cannot be listed ({type(exc).__name__})")
        return text_result("\n".join(names) or "no match", {"count": len(names)})

    async def fetch_quote(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        refused = refusal(params, {"symbol": ("string", False)})
        if refused:
            return text_result(refused)
        url = "https://quotes.example.com/v1/" + urllib.parse.quote(params["symbol"], safe="")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return text_result(response.read().decode("utf-8", "replace"))
        except Exception as exc:
            # The catch-all: a transport fault is rethrown (tagged), never flattened into an answer.
            if not is_transport_failure(exc):
                mark_transport_failure(exc)
            raise

    def who_am_i(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        refused = refusal(params, {})
        if refused:
            return text_result(refused)
        identity = ctx.current_identity()  # read at execution time, every call (SCOPE-4)
        access = ctx.current_access()
        projects = ", ".join(access.get("projectIds") or []) or "none"
        return text_result(f"{identity.get('userId')} (projects: {projects})")

    ctx.register_tool(define_tool(
        name="ReadNote", label="Read note", description="Reads one note file.",
        parameters=Type.Object({"file_path": Type.String(description="The note file to read.")}),
        execute=read_note,
    ))
    ctx.register_tool(define_tool(
        name="FindNotes", label="Find notes",
        description="Lists the files of a directory whose names contain a pattern.",
        parameters=Type.Object({
            "pattern": Type.String(description="Text the file name must contain."),
            "path": Type.Optional(Type.String(description="Directory to search; the working directory if omitted.")),
        }),
        execute=find_notes,
    ))
    ctx.register_tool(define_tool(
        name="FetchQuote", label="Fetch quote", description="Fetches the current price of a stock symbol.",
        parameters=Type.Object({"symbol": Type.String(description="Ticker symbol, like ACME.")}),
        execute=fetch_quote,
    ))
    ctx.register_tool(define_tool(
        name="WhoAmI", label="Who am I",
        description="Says who the current turn runs as and which Projects it may use.",
        parameters=Type.Object({}),
        execute=who_am_i,
    ))
