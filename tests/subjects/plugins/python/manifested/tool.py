"""A plugin with a manifest and a sibling helper module; register is async."""

from __future__ import annotations

from typing import Any

from helpers import upper

from reference_host import define_tool, text_result


def _execute(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return text_result(upper(str(params.get("text", ""))))


async def register(ctx: Any) -> None:
    ctx.register_tool(
        define_tool(
            name="Upper",
            label="Upper",
            description="Upper-cases text.",
            parameters={"type": "object", "properties": {"text": {"type": "string"}}},
            execute=_execute,
        )
    )
