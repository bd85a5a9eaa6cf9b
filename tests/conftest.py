"""The kit's own tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import hypothesis.strategies  # noqa: F401 - import once here: pytester runs that import it first get a second copy
import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
NODE_MODULES = REPO / "tests" / "node_modules"


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
