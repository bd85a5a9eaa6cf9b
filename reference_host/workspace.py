"""Core workspace tools over the session's sandbox (filled in with the sandbox module)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .tools import text_result

if TYPE_CHECKING:
    from .session import Session


def run_workspace_tool(session: Session, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return text_result(f"{name} is not available in this host build.")
