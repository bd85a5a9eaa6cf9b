"""Breaks REG-3: results carry details: None instead of a details object."""

from __future__ import annotations

from typing import Any

from plugin_check import refusal

from reference_host import define_tool
from reference_host.typebox import Type


async def _echo(_call_id: str, params: dict[str, Any]) -> Any:
    return {"content": [{"type": "text", "text": refusal(params, {"value": ("string", False)}) or params["value"]}],
            "details": None}


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(
        name="Echo", label="Echo", description="Returns the supplied text.",
        parameters=Type.Object({"value": Type.String(description="Text to return.")}),
        execute=_echo,
    ))
