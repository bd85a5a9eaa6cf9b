"""Real line processes for the supervisor and confinement tests (tests/kit/conftest.py's ``started``
closes them at the end of a test)."""

from __future__ import annotations

import sys
import time

from pytest_toolconformance.supervisor import LineProcess


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def python(started: list[LineProcess], code: str, **kwargs: object) -> LineProcess:
    """A Python child running ``code``, closed with the test."""
    process = LineProcess([sys.executable, "-c", code], **kwargs)  # type: ignore[arg-type]
    started.append(process)
    return process
