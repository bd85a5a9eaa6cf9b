"""Tool definitions and results: ``defineTool`` and the ``{content, details}`` result shape."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RegistrationError

Result = dict[str, Any]
Handler = Callable[[str, dict[str, Any]], Result | Awaitable[Result]]


@dataclass(frozen=True)
class Tool:
    """A tool as ``define_tool`` returns it (PI's ``defineTool``)."""

    name: str
    label: str
    description: str
    parameters: dict[str, Any]
    execute: Handler = field(repr=False, compare=False)


def define_tool(
    *,
    name: str,
    label: str,
    description: str,
    parameters: Mapping[str, Any],
    execute: Handler,
) -> Tool:
    """Build a tool (REG-2). ``execute(call_id, params)`` may be sync or async.

    The description may be empty here: whether the tool is external is only known when it is
    registered, and an external tool's description is its owner's, capped by the host at
    composition (CAP-1), never refused; ``register_tool`` refuses an empty one for an internal tool."""
    for key, value in (("name", name), ("label", label)):
        if not isinstance(value, str) or not value:
            raise RegistrationError(
                f"tool {name!r}: {key} must be a non-empty string, got {value!r}",
                rule="REG-2",
                subject=str(name),
            )
    if not isinstance(description, str):
        raise RegistrationError(
            f"tool {name!r}: description must be a string, got {description!r}", rule="REG-2", subject=str(name)
        )
    if not isinstance(parameters, Mapping):
        raise RegistrationError(
            f"tool {name!r}: parameters must be a schema object (use Type.Object(...)), "
            f"got {type(parameters).__name__}",
            rule="SCHEMA-1",
            subject=name,
        )
    if not callable(execute):
        raise RegistrationError(
            f"tool {name!r}: execute must be callable (call_id, params) -> result",
            rule="REG-2",
            subject=name,
        )
    return Tool(name=name, label=label, description=description, parameters=dict(parameters), execute=execute)


def text_result(text: str, details: Mapping[str, Any] | None = None) -> Result:
    """A normal result with one text item (REG-3)."""
    return {"content": [{"type": "text", "text": text}], "details": dict(details or {})}


def image_result(data: bytes | str, mime_type: str, details: Mapping[str, Any] | None = None) -> Result:
    """A normal result with one image item; ``data`` is base64 (bytes are encoded for you)."""
    if isinstance(data, bytes):
        data = base64.b64encode(data).decode("ascii")
    return {"content": [{"type": "image", "data": data, "mimeType": mime_type}], "details": dict(details or {})}


def result_problems(result: Any) -> list[str]:
    """What makes ``result`` not a REG-3 normal result; empty when it is one."""
    if not isinstance(result, Mapping):
        return [f"result must be an object with content and details, got {type(result).__name__}"]
    problems: list[str] = []
    content = result.get("content")
    if not isinstance(content, list):
        problems.append("content must be an array")
    else:
        for i, item in enumerate(content):
            if not isinstance(item, Mapping):
                problems.append(f"content[{i}] must be an object")
            elif item.get("type") == "text":
                if not isinstance(item.get("text"), str):
                    problems.append(f"content[{i}].text must be a string")
            elif item.get("type") == "image":
                if not isinstance(item.get("data"), str) or not isinstance(item.get("mimeType"), str):
                    problems.append(f"content[{i}] image needs string data and mimeType")
            else:
                problems.append(f"content[{i}].type {item.get('type')!r} is not PI-supported (text, image)")
    if not isinstance(result.get("details"), Mapping):
        problems.append("details must be an object")
    return problems
