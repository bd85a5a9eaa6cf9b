"""The own suite's order under ``-n N --dist worksteal`` (tests/conftest.py): each worker starts with
its turn of the longest tests, as xdist's own scheduler splits the collection."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from xdist.scheduler.worksteal import WorkStealingScheduling

from tests import conftest


class FakeWorker:
    """What WorkStealingScheduling asks of a worker: a name, and where the tests it sends go."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


class FakeConfig:
    """A worker's config as xdist leaves it: its own ``--dist`` reads "no"; the controller's comes in
    ``workerinput`` (conftest's pytest_configure_node, run here on a fake node)."""

    def __init__(self, workers: int, dist: str = "worksteal") -> None:
        self.workerinput: dict[str, Any] = {"workercount": workers}
        controller = SimpleNamespace(getoption=lambda name, default=None: dist if name == "dist" else default)
        conftest.pytest_configure_node(SimpleNamespace(workerinput=self.workerinput, config=controller))

    def getvalue(self, name: str) -> Any:
        return [f"{self.workerinput['workercount']}*popen"] if name == "tx" else None

    def getoption(self, name: str, default: Any = None) -> Any:
        return "no" if name == "dist" else default


def first_shares(nodeids: list[str], workers: int) -> list[list[str]]:
    """The tests xdist's worksteal scheduler gives each worker first, for this collection."""
    scheduler = WorkStealingScheduling(FakeConfig(workers))  # type: ignore[arg-type]
    nodes = [FakeWorker(f"gw{i}") for i in range(workers)]
    for node in nodes:
        scheduler.add_node(node)  # type: ignore[arg-type]
        scheduler.add_node_collection(node, nodeids)  # type: ignore[arg-type]
    scheduler.schedule()
    return [[nodeids[i] for i in node.sent] for node in nodes]


@pytest.mark.parametrize("workers", [2, 3, 4])
def test_each_worker_starts_with_its_turn_of_the_longest_tests(workers: int) -> None:
    plain = [f"tests/kit/test_{i:03}.py::test_it" for i in range(200)]
    # The longest tests as they are collected: late, and the corpus a module of three.
    longest = [conftest.LONGEST[0], *(f"{conftest.LONGEST[1]}::test_{n}" for n in "abc"), *conftest.LONGEST[2:]]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in plain + longest]
    conftest.pytest_collection_modifyitems(FakeConfig(workers), items)  # type: ignore[arg-type]
    order = [item.nodeid for item in items]
    assert sorted(order) == sorted(plain + longest)

    shares = first_shares(order, workers)
    for worker, share in enumerate(shares):
        turn = conftest.LONGEST[worker::workers]
        head = [nodeid for nodeid in share if not nodeid.startswith("tests/kit/test_")]
        assert share[: len(head)] == head, f"worker {worker}: a long test after a short one: {share[:8]}"
        assert {n.split("::")[0] if n.startswith(conftest.LONGEST[1]) else n for n in head} == {
            name.split("::")[0] if name == conftest.LONGEST[1] else name for name in turn
        }
    corpus = [n for n in order if n.startswith(conftest.LONGEST[1])]
    assert corpus == [f"{conftest.LONGEST[1]}::test_{n}" for n in "abc"], "the corpus module was split"


def test_without_worksteal_the_order_is_left_as_collected() -> None:
    items = [SimpleNamespace(nodeid=n) for n in (conftest.LONGEST[0], "a::b")][::-1]
    conftest.pytest_collection_modifyitems(FakeConfig(3, dist="load"), items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == ["a::b", conftest.LONGEST[0]]


def test_every_longest_test_exists() -> None:
    """A renamed test would drop out of the order without a word."""
    root = Path(conftest.__file__).resolve().parent.parent
    for name in conftest.LONGEST:
        path, _, test = name.partition("::")
        source = (root / path).read_text("utf-8")
        assert not test or f"def {test.split('[')[0]}(" in source, name
        assert "[" not in test or test.split("[")[1].rstrip("]") in {
            p.stem for p in (root / "tests" / "subjects" / "mutants").glob("*.py")
        }, name
