"""The witnesses' one fixture: a reference host beside a broken one."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter, reference_adapter
from tests.kit.suites.witnesses import Pair


@pytest.fixture
def hosts() -> Iterator[Pair]:
    """``hosts(mutant)``: a fresh reference adapter and a fresh adapter over the named mutant."""
    opened: list[ReferenceHostAdapter] = []

    def make(name: str) -> tuple[ReferenceHostAdapter, ReferenceHostAdapter]:
        module = importlib.import_module(f"tests.subjects.mutants.{name}")
        pair = (reference_adapter(), module.factory())
        opened.extend(pair)
        return pair

    yield make
    for adapter in opened:
        adapter.close()
