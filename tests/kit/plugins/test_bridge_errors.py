"""A failed load worded for the plugin's author (pytest_toolconformance/plugins/loaders/bridge_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_toolconformance.plugins.loaders.bridge_errors import load_failure


def _load_error(tmp_path: Path, message: str) -> str:
    entry = tmp_path / "plugin" / "dist" / "index.mjs"
    error = {"phase": "import", "name": "Error", "code": "ERR_MODULE_NOT_FOUND", "message": message}
    return str(load_failure(entry, entry.parent.parent, "esm", None, 10.0, error, None))


def test_an_installed_package_without_an_entry_is_not_called_missing(tmp_path: Path) -> None:
    """A dependency published as TypeScript sources only (no main, no exports, no index.js), as a real
    OpenClaw plugin's `@clawly/plugin-core` is: installing it again would change nothing."""
    core = tmp_path / "node_modules" / "@clawly" / "plugin-core"
    core.mkdir(parents=True)
    (core / "package.json").write_text(json.dumps({"name": "@clawly/plugin-core", "version": "0.2.2"}))
    (core / "index.ts").write_text("export const x = 1;\n")
    text = _load_error(tmp_path, f"Cannot find package '{core}/index.js' imported from /p/dist/index.mjs")
    assert f"installed in {core}, which has no entry Node can load" in text, text
    assert "Install the missing package" not in text


def test_a_package_that_is_not_there_is_missing(tmp_path: Path) -> None:
    gone = tmp_path / "node_modules" / "left-out"
    text = _load_error(tmp_path, f"Cannot find package '{gone}/index.js' imported from /p/dist/index.mjs")
    assert "Install the missing package where the plugin can resolve it" in text, text
