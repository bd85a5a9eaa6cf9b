"""The kit's own tests."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import hypothesis.strategies  # noqa: F401 - import once here: pytester runs that import it first get a second copy
import pytest

# A shell starts a background job (`cmd &` without job control, as some CI runners do) with SIGINT
# ignored, and an ignored signal stays ignored through exec: Python then installs no KeyboardInterrupt
# handler, and neither do the runs the Ctrl-C tests start. A terminal's foreground job has Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ALLOW_UNCONFINED = "--toolconformance-allow-unconfined"

from pytest_toolconformance import confinement  # noqa: E402
from tests.paths import BUN, NODE_MODULES, SHARED  # noqa: E402

# The kit's own plugins are trusted: where this machine cannot confine them (no namespaces), the kit
# runs these tests start check them anyway, in CI too (the gate itself is tested with this removed).
if not confinement.current().isolated:
    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    if ALLOW_UNCONFINED not in addopts.split():
        os.environ["PYTEST_ADDOPTS"] = f"{addopts} {ALLOW_UNCONFINED}".strip()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout; tests that need it skip with the reason where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not here (the project's shared data sits beside the checkout in CI)")
    return SHARED


@pytest.fixture(scope="module", params=["node", "bun"])
def js_runtime(request: pytest.FixtureRequest) -> str:
    """The JS runtimes a wire host of the kit's JS host kit runs on: Node.js, and Bun."""
    if request.param == "bun":
        if not BUN.is_file():
            pytest.skip("needs Bun: run `npm ci --prefix tests` on linux-x64 (its optional @oven/bun-linux-x64)")
        return str(BUN)
    found = shutil.which("node")
    if found is None:
        pytest.skip("needs Node.js on PATH")
    return found


@pytest.fixture(scope="session")
def node_ready() -> str:
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "typebox").is_dir():
        pytest.skip("needs Node.js and tests/node_modules: run `npm ci --prefix tests`")
    return node


#: The own suite's longest tests (docs/performance.md, "Where the wall time goes now"), longest first;
#: a path alone stands for its whole module (the corpus pair shares one module-scoped run).
LONGEST = (
    "tests/kit/suites/test_plugin_suites.py::test_faulty_plugins_are_reported_and_the_run_goes_on",
    "tests/kit/plugins/test_plugin_corpus.py",
    "tests/kit/plugins/test_plugin_corpus_openclaw.py",
    "tests/kit/host/wire/test_wire_fault_budget.py",
    "tests/kit/suites/test_mutants.py::test_mutant_is_caught_on_its_rule_and_no_other[cost_1_rescans_catalog_per_tool]",
    "tests/kit/host/wire/test_wire_equivalence.py",
    "tests/kit/plugins/test_plugin_pi.py",
)


#: The controller's ``--dist``, handed to each worker (a worker's own ``--dist`` reads "no").
DIST_KEY = "toolconformance_own_suite_dist"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput[DIST_KEY] = node.config.getoption("dist")


def _worksteal_shares(count: int, workers: int) -> list[int]:
    """How many tests each worker gets first under ``--dist worksteal`` (xdist splits the collection
    in order: the first idle worker the first ``count // workers``, the next a share of the rest)."""
    shares = []
    for worker in range(workers):
        shares.append(count // (workers - worker))
        count -= shares[-1]
    return shares


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``-n N --dist worksteal``, each worker's first share starts with its turn of LONGEST.

    A worker runs its share in order and others steal only from a share's end, so a long test placed
    late in a share ran last, alone (the faulty-plugin run: the suite's last 351 s on one worker while
    two were done). Every worker collects the same order, as xdist requires."""
    workerinput = getattr(config, "workerinput", {})
    workers = workerinput.get("workercount", 0)
    if workers < 2 or workerinput.get(DIST_KEY) != "worksteal":
        return
    groups: list[list[pytest.Item]] = [[] for _ in LONGEST]
    rest: list[pytest.Item] = []
    for item in items:
        index = next((i for i, name in enumerate(LONGEST) if item.nodeid == name or
                      ("::" not in name and item.nodeid.startswith(f"{name}::"))), None)
        (rest if index is None else groups[index]).append(item)
    ordered: list[pytest.Item] = []
    for worker, share in enumerate(_worksteal_shares(len(items), workers)):
        head = [item for group in groups[worker::workers] for item in group]
        ordered += head + rest[: max(0, share - len(head))]
        rest = rest[max(0, share - len(head)):]
    items[:] = ordered + rest
