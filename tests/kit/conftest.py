"""Fixtures of the kit's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_toolconformance.supervisor import LineProcess


@pytest.fixture
def started() -> Iterator[list[LineProcess]]:
    """The line processes a test started (tests/kit/line_processes.py), closed at its end."""
    made: list[LineProcess] = []
    yield made
    for process in made:
        process.close()
