"""One tool never returns (a blocking sleep); the other answers at once."""

from __future__ import annotations

import time
from typing import Any

from plugin_check import refusal

from reference_host import define_tool, text_result
from reference_host.typebox import Type


def _sleep(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    time.sleep(3600)
    return text_result("woke up")


def _quick(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return text_result(refusal(params, {}) or "quick")


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(name="Sleep", label="Sleep", description="Never returns.",
                                  parameters=Type.Object({}), execute=_sleep))
    ctx.register_tool(define_tool(name="Quick", label="Quick", description="Returns at once.",
                                  parameters=Type.Object({}), execute=_quick))
