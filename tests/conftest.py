"""The kit's own tests."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - import once here: pytester runs that import it first get a second copy
import pytest

# A shell starts a background job (`cmd &` without job control, as some CI runners do) with SIGINT
# ignored, and an ignored signal stays ignored through exec: Python then installs no KeyboardInterrupt
# handler, and neither do the runs the Ctrl-C tests start. A terminal's foreground job has Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ALLOW_UNCONFINED = "--toolconformance-allow-unconfined"

from pytest_toolconformance import _proc  # noqa: E402
from tests.paths import BUN, NODE_MODULES, SHARED  # noqa: E402

# The kit's own plugins are trusted: where this machine cannot confine them (no namespaces), the kit
# runs these tests start check them anyway, in CI too (the gate itself is tested with this removed).
if not _proc.confinement().isolated:
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
    """The JS runtimes a wire host of the kit's JS host kit runs on: Node.js, and Bun (issue 21, item 8)."""
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
