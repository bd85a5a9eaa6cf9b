"""A plugin author's Python plugin with one mistake (ERR-2): a wrong-typed `count` makes it throw."""

from __future__ import annotations

from typing import Any

from reference_host import define_tool, text_result
from reference_host.typebox import Type


async def _double(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    if set(params) - {"count"}:
        return text_result(f"unknown parameter {sorted(set(params) - {'count'})[0]}; expected count")
    if "count" not in params:
        return text_result("count is required")
    count = params["count"]
    if isinstance(count, bool) or not isinstance(count, (int, float)):
        raise TypeError(f"count must be a number, not {type(count).__name__}")  # the mistake: text, not a throw
    return text_result(f"Result: {count * 2:g}")


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(
        name="Double", label="Double", description="Doubles a number.",
        parameters=Type.Object({"count": Type.Number(description="The number to double.")}),
        execute=_double,
    ))
