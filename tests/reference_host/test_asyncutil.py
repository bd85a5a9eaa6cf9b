"""reference_host.asyncutil.run_bounded: plugin code on reused workers, still bounded."""

from __future__ import annotations

import asyncio
import contextvars
import signal
import threading
import time

import pytest

from reference_host.asyncutil import CallTimeout, run_bounded

_who = contextvars.ContextVar("who", default="nobody")


def test_sync_and_async_results_and_errors() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    def boom() -> None:
        raise ValueError("plugin failure")

    assert run_bounded(lambda: 7, 5) == 7
    assert run_bounded(answer, 5) == 42
    with pytest.raises(ValueError, match="plugin failure"):
        run_bounded(boom, 5)


def test_plugin_code_runs_inside_a_running_loop_with_the_callers_context() -> None:
    _who.set("session-1")

    def inside() -> tuple[str, bool]:
        asyncio.get_running_loop()  # raises outside a running loop, as under asyncio.run
        return _who.get(), threading.current_thread() is not threading.main_thread()

    assert run_bounded(inside, 5) == ("session-1", True)


def test_a_hung_call_times_out_and_the_next_call_does_not_wait_behind_it() -> None:
    release = threading.Event()
    with pytest.raises(CallTimeout):
        run_bounded(lambda: release.wait(30), 0.2)
    try:
        # The hung worker is retired: were it reused, this call would queue behind the hang.
        assert run_bounded(lambda: "next", 5) == "next"
    finally:
        release.set()


def test_ctrl_c_delivered_to_the_worker_still_stops_the_wait() -> None:
    # Ctrl-C's SIGINT goes to the process and the kernel may hand it to any thread: here, for
    # certain, to the worker running the plugin code, while the caller waits on it.
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("Python raises KeyboardInterrupt in the main thread only")
    release = threading.Event()

    def hangs_after_ctrl_c() -> None:
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        release.wait(60)

    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_bounded(hangs_after_ctrl_c, 60)
    finally:
        release.set()
    assert time.monotonic() - began < 30, "the wait went on to its bound"


def test_a_call_from_inside_plugin_code_takes_another_worker() -> None:
    assert run_bounded(lambda: run_bounded(lambda: run_bounded(lambda: "deep", 5), 5), 5) == "deep"


def test_tasks_a_call_leaves_behind_are_cancelled_when_it_returns() -> None:
    left: list[asyncio.Task[None]] = []

    async def leave_a_task() -> str:
        left.append(asyncio.get_running_loop().create_task(asyncio.sleep(3600)))
        return "done"

    assert run_bounded(leave_a_task, 5) == "done"
    assert left[0].cancelled()

