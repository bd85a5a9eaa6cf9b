"""What a bridged plugin's notes do on the host's side, while one of its requests runs.

A bridge reports what a plugin does as one-way notes (``js/bridge.mjs`` documents them): ``log``
lines, ``read`` (a ``ctx.current*()`` answered from the mirror), ``tool`` (a registration reported
after the fact) and, during a first load on POSIX, ``ctx`` (a synchronous host call, answered on
the host-call pipe). :class:`FirstLoadNotes` carries a first load's notes out against the host's
``ctx``; :class:`CallNotes` collects a call's. Neither knows the process: the plugin API
(:mod:`.bridged`) hands them the connection's reply and its own way of registering a tool.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolconformance.plugins.loaders.bridge_connection import jsonable
from reference_host import PluginLoadError

#: JS ctx reads -> the Python ctx methods.
READ_METHODS = {
    "currentIdentity": "current_identity",
    "currentAccess": "current_access",
    "currentAccountUserId": "current_account_user_id",
}


def log_to(ctx: Any, level: str, message: str) -> None:
    """Log ``message`` on the host ctx's logger at ``level`` (``info`` when it has no such level)."""
    logger = getattr(ctx, "logger", None)
    method = getattr(logger, level, None) or getattr(logger, "info", None)
    if method is not None:
        method(message)


class FirstLoadNotes:
    """Carries out the notes of a first (non-replayed) load against the host's ``ctx``.

    ``register_tool(ctx, note)`` turns a reported ``registerTool`` into the host's registration and
    returns what the host answered; ``reply`` answers a synchronous host call on the host-call pipe.
    A host refusal thrown back into the plugin is kept in :attr:`stash` under the token the reply
    carries, so that a plugin that lets it escape its register surfaces the host's own exception;
    a failure of a note reported after the fact is kept in :attr:`deferred_error`, raised after the load.
    """

    def __init__(
        self,
        ctx: Any,
        *,
        register_tool: Callable[[Any, Mapping[str, Any]], Any],
        reply: Callable[[Mapping[str, Any]], None],
    ) -> None:
        self.ctx = ctx
        self._register_tool = register_tool
        self._reply = reply
        self.stash: dict[str, BaseException] = {}
        self.deferred_error: BaseException | None = None

    def on_message(self, item: dict[str, Any]) -> None:
        op = item.get("op")
        if op == "log":
            log_to(self.ctx, str(item.get("level")), str(item.get("message")))
        elif op == "ctx":
            self._host_call(item)
        elif op == "read":
            # Mirror mode (no host-call pipe): the plugin read from the mirror, so make the
            # same read on the host now, while register() is still running.
            method = READ_METHODS.get(str(item.get("method")))
            if method is not None:
                try:
                    getattr(self.ctx, method)()
                except Exception as exc:  # surfaced after the load
                    self.deferred_error = self.deferred_error or exc
        elif op == "tool":
            try:
                self._register_tool(self.ctx, item)
            except Exception as exc:  # surfaced after the load
                self.deferred_error = self.deferred_error or exc

    def _host_call(self, item: dict[str, Any]) -> None:
        method = str(item.get("method"))
        try:
            if method == "registerTool":
                value = self._register_tool(self.ctx, item.get("args") or {})
                if not isinstance(value, (bool, int, float, str, type(None))):
                    value = None
            elif method in READ_METHODS:
                value = getattr(self.ctx, READ_METHODS[method])()
                json.dumps(value, default=jsonable)  # fail here, not in the reply writer
            else:
                raise PluginLoadError(f"unknown host call {method!r}")
        except Exception as exc:  # thrown back into the plugin's register()
            token = secrets.token_hex(8)
            self.stash[token] = exc
            self._reply(
                {
                    "ok": False,
                    "error": {
                        "name": type(exc).__name__,
                        "message": str(exc),
                        "rule": getattr(exc, "rule", None),
                        "token": token,
                    },
                }
            )
            return
        self._reply({"ok": True, "value": value})


class CallNotes:
    """Collects the notes of one call: log lines go to the ctx logger (when there is a ctx), reads are recorded."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.reads: list[str] = []
        self.logs: list[dict[str, str]] = []

    def on_message(self, item: dict[str, Any]) -> None:
        op = item.get("op")
        if op == "log":
            entry = {"level": str(item.get("level")), "message": str(item.get("message"))}
            self.logs.append(entry)
            if self.ctx is not None:
                log_to(self.ctx, entry["level"], entry["message"])
        elif op == "read":
            self.reads.append(str(item.get("method")))


__all__ = ["READ_METHODS", "CallNotes", "FirstLoadNotes", "log_to"]
