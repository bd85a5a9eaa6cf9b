"""The seam's example tool as a Python plugin (REG-1..REG-3)."""

from __future__ import annotations

from typing import Any

from reference_host import define_tool, text_result
from reference_host.typebox import Type

PARAMETERS = Type.Object({"value": Type.String(description="Text to return.")})


async def _execute(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    value = params.get("value")
    if not isinstance(value, str):
        return text_result("value must be a string")
    return text_result(value)


def register(ctx: Any) -> None:
    ctx.register_tool(
        define_tool(
            name="MyTool",
            label="Example tool",
            description="Returns the supplied text.",
            parameters=PARAMETERS,
            execute=_execute,
        )
    )
    ctx.logger.info("example tool registered")
