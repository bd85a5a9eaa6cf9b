"""A plugin whose register(ctx) registers no tool: every per-tool rule is not applicable to it."""

from __future__ import annotations

from typing import Any


def register(ctx: Any) -> None:
    ctx.logger.info("nothing to register until configured")
