"""Running sync-or-async plugin code with a bound on its time."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Callable
from typing import Any


class CallTimeout(Exception):
    """Plugin code did not finish within its time bound."""


def run_bounded(fn: Callable[[], Any], timeout: float) -> Any:
    """Run ``fn()`` (awaiting its result if it is awaitable) in a worker thread, bounded by ``timeout``.

    A worker thread keeps a hung synchronous handler from hanging the host: the call is reported
    as timed out and the thread is abandoned (it is a daemon). The caller's context variables go
    with the call, so ``ctx.current_access()`` knows which session and call it serves.
    """
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        async def main() -> Any:
            value = fn()
            if inspect.isawaitable(value):
                value = await value
            return value

        try:
            outcome["value"] = context.run(asyncio.run, main())
        except BaseException as exc:  # noqa: BLE001 - every failure of plugin code is reported, not raised here
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="toolconformance-plugin-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise CallTimeout(f"did not finish within {timeout:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
