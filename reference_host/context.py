"""Which session and call a piece of plugin code is running for."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol


class PolicyOwner(Protocol):
    """What a call may reach of its host: the live policy (a scripted plugin changes it mid-call)."""

    def set_policy(self, account: str, changes: Mapping[str, Any]) -> dict[str, Any]: ...


class CallSession(Protocol):
    """What plugin-facing code needs of the session a call runs in (the reference ``Session`` is one).

    Declared here, not imported, so that the session can import this module and not the reverse."""

    host: PolicyOwner
    observations: list[dict[str, Any]]

    def current_identity(self) -> Any: ...

    def current_access(self) -> Any: ...

    def current_account_user_id(self) -> str: ...

    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class CallContext:
    session: CallSession
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
