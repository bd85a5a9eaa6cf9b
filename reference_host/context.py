"""Which session and call a piece of plugin code is running for."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class CallContext:
    session: Session
    call_id: str
    tool: str
    cwd: str | None = None


current_call: ContextVar[CallContext | None] = ContextVar("toolconformance_current_call", default=None)


def active_call() -> CallContext | None:
    return current_call.get()


def require_call(what: str) -> CallContext:
    ctx = current_call.get()
    if ctx is None:
        raise RuntimeError(f"{what} can only run inside a tool call")
    return ctx


