"""A plugin that reads a token from the environment when it is imported (os.environ[...] raises KeyError
where the variable is not set): under the kit, only a variable passed with --toolconformance-pass-env."""

from __future__ import annotations

import os
from typing import Any

from reference_host import define_tool, text_result
from reference_host.typebox import Type

TOKEN = os.environ["CONFORMANCE_SUBJECT_TOKEN"]


async def _execute(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    value = params.get("value")
    return text_result(value if isinstance(value, str) else "value must be a string")


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(name="MyTool", label="Example tool", description="Returns the supplied text.",
                                  parameters=Type.Object({"value": Type.String(description="Text to return.")}),
                                  execute=_execute))
