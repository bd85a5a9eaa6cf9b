"""Running sync-or-async plugin code with a bound on its time."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import queue
import threading
import time
from collections.abc import Callable
from typing import Any


class CallTimeout(Exception):
    """Plugin code did not finish within its time bound."""


_Job = Callable[[asyncio.AbstractEventLoop], None]


class _Worker:
    """A daemon thread with its own event loop, running one job at a time.

    Starting a thread and an event loop for every call was most of the cost of a fast call (a
    thread start waits for the scheduler, a loop opens and closes a socket pair), so a worker is
    kept and reused. A worker whose job overran its bound is never reused: it retires once the
    job finishes, if it ever does.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="toolconformance-plugin-call", daemon=True).start()

    def submit(self, job: _Job) -> None:
        self._jobs.put(job)

    def retire(self) -> None:
        self._jobs.put(None)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            while (job := self._jobs.get()) is not None:
                if loop.is_closed():  # plugin code closed it; the next call gets a fresh one
                    loop = asyncio.new_event_loop()
                asyncio.set_event_loop(loop)
                job(loop)
        finally:
            if not loop.is_closed():
                loop.close()


# Idle workers, most recently used last. A call made from inside plugin code (a handler that
# calls the host, which runs another handler) takes another worker, so nesting cannot deadlock.
_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _take_worker() -> _Worker:
    with _idle_lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _idle_lock:
        _idle.append(worker)


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks a call left running, as ``asyncio.run`` does when its coroutine returns."""
    leftovers = asyncio.all_tasks(loop)
    if not leftovers:
        return
    for task in leftovers:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))


#: The longest the waiting thread sleeps at a time. A process-wide signal (Ctrl-C's SIGINT) may be
#: delivered to any thread; when it lands on a worker, the waiting main thread is not woken, and Python
#: raises KeyboardInterrupt only once that thread runs Python code again.
SIGNAL_CHECK_SECONDS = 0.25


def _wait_interruptibly(done: threading.Event, timeout: float) -> bool:
    """``done.wait(timeout)`` in slices, so that Ctrl-C stops the wait within a slice."""
    deadline = time.monotonic() + timeout
    while not done.wait(max(0.0, min(SIGNAL_CHECK_SECONDS, deadline - time.monotonic()))):
        if time.monotonic() >= deadline:
            return False
    return True


def run_bounded(fn: Callable[[], Any], timeout: float) -> Any:
    """Run ``fn()`` (awaiting its result if it is awaitable) in a worker thread, bounded by ``timeout``.

    A worker thread keeps a hung synchronous handler from hanging the host: the call is reported
    as timed out and the thread is abandoned (it is a daemon). The caller's context variables go
    with the call, so ``ctx.current_access()`` knows which session and call it serves. Plugin code
    runs inside a running event loop, as under ``asyncio.run``; tasks it leaves behind are
    cancelled when the call returns.
    """
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()
    done = threading.Event()

    async def main() -> Any:
        value = fn()
        if inspect.isawaitable(value):
            value = await value
        return value

    def job(loop: asyncio.AbstractEventLoop) -> None:
        try:
            try:
                outcome["value"] = context.run(loop.run_until_complete, main())
            finally:
                if not loop.is_closed():
                    _cancel_leftovers(loop)
        except BaseException as exc:  # noqa: BLE001 - every failure of plugin code is reported, not raised here
            outcome["error"] = exc
        finally:
            done.set()

    worker = _take_worker()
    worker.submit(job)
    if not _wait_interruptibly(done, timeout):
        worker.retire()
        raise CallTimeout(f"did not finish within {timeout:g} s")
    _give_back(worker)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
