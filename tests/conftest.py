"""The kit's own tests."""

from __future__ import annotations

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

from tests.paths import NODE_MODULES, SHARED


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout; tests that need it skip with the reason where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not here (the project's shared data sits beside the checkout in CI)")
    return SHARED


@pytest.fixture(scope="session")
def node_ready() -> str:
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "typebox").is_dir():
        pytest.skip("needs Node.js and tests/node_modules: run `npm ci --prefix tests`")
    return node
