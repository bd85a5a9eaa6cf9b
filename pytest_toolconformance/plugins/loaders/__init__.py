"""Plugin loaders: turn a plugin folder, manifest or entry file into an object with ``register(ctx)``.

Python entries are imported in-process (:mod:`.python`); JS and TypeScript entries run in one
Node.js process per plugin (:mod:`.node`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_toolconformance.plugins.loaders.node import (
    JS_SUFFIXES,
    TS_SUFFIXES,
    NodePlugin,
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
    entry_name,
)
from pytest_toolconformance.plugins.loaders.python import load_python_plugin
from reference_host.errors import PluginLoadError

MANIFEST_NAME = "plugin.json"
PY_SUFFIXES = frozenset({".py"})
ENTRY_SUFFIXES = PY_SUFFIXES | JS_SUFFIXES | TS_SUFFIXES
# Looked for, in order, in a folder without a manifest (after package.json "main").
DEFAULT_ENTRIES = ("index.mjs", "index.js", "index.ts", "plugin.py")


@dataclass
class LoadedPlugin:
    """A plugin ready to install: ``plugin.register(ctx)`` registers its tools."""

    name: str
    kind: Literal["python", "node"]
    entry: Path
    manifest: dict[str, Any] | None
    plugin: Any


def _read_json(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PluginLoadError(f"cannot read {what} {path}: {exc}", subject=str(path)) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PluginLoadError(
            f"{what} {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}. Fix the file "
            "(JSON allows no comments or trailing commas)",
            subject=str(path),
        ) from exc


def _default_entry(folder: Path) -> Path | None:
    package = folder / "package.json"
    if package.is_file():
        data = _read_json(package, "package.json")
        main = data.get("main") if isinstance(data, dict) else None
        if isinstance(main, str) and main:
            candidate = (folder / main).resolve()
            if not candidate.is_file():
                raise PluginLoadError(
                    f"package.json in {folder} names main {main!r}, but {candidate} does not exist; fix 'main' "
                    "or add a plugin.json with an 'entry'",
                    subject=str(package),
                )
            return candidate
    for name in DEFAULT_ENTRIES:
        candidate = folder / name
        if candidate.is_file():
            return candidate.resolve()
    return None


def _from_manifest(manifest_path: Path) -> tuple[Path, str, dict[str, Any]]:
    folder = manifest_path.parent
    data = _read_json(manifest_path, "plugin manifest")
    if not isinstance(data, dict):
        raise PluginLoadError(
            f"plugin manifest {manifest_path} must be a JSON object like "
            '{"name": "my-plugin", "entry": "index.mjs"}, got ' + type(data).__name__,
            subject=str(manifest_path),
        )
    name = data.get("name")
    if not isinstance(name, str) or not name:
        name = folder.name
    entry_text = data.get("entry")
    if entry_text is None:
        entry = _default_entry(folder)
        if entry is None:
            raise PluginLoadError(
                f'plugin manifest {manifest_path} has no "entry" and {folder} holds none of '
                f'{", ".join(DEFAULT_ENTRIES)}; add "entry": "relative/path" to the manifest',
                subject=str(manifest_path),
            )
        return entry, name, data
    if not isinstance(entry_text, str) or not entry_text:
        raise PluginLoadError(
            f'plugin manifest {manifest_path}: "entry" must be a relative path string, got {entry_text!r}',
            subject=str(manifest_path),
        )
    entry = (folder / entry_text).resolve()
    if not entry.is_file():
        raise PluginLoadError(
            f"plugin manifest {manifest_path} names entry {entry_text!r}, but {entry} does not exist; fix "
            '"entry" (it is relative to the manifest\'s folder) or add the file',
            subject=str(manifest_path),
        )
    return entry, name, data


def load_plugin(
    path: str | os.PathLike[str], *, timeout: float = 5.0, workspace: str | os.PathLike[str] | None = None
) -> LoadedPlugin:
    """Load a plugin from a folder (with ``plugin.json`` or a default entry), a manifest or an entry file.

    The name is the manifest's ``name``, else the folder's name, else the entry's stem (the folder's
    name for an ``index.*`` entry). Python entries are imported now; JS/TS entries start their node
    process on ``register``. ``timeout`` bounds each request to a JS plugin's process;
    ``workspace`` is where a JS plugin's process runs (pi's ``ctx.cwd`` outside a call).
    """
    given = Path(path)
    target = given.resolve()
    if not target.exists():
        raise PluginLoadError(
            f"plugin path {given} does not exist; pass a plugin folder, its {MANIFEST_NAME} or an entry file",
            subject=str(given),
        )
    manifest: dict[str, Any] | None = None
    if target.is_dir():
        manifest_path = target / MANIFEST_NAME
        if manifest_path.is_file():
            entry, name, manifest = _from_manifest(manifest_path)
        else:
            found = _default_entry(target)
            if found is None:
                raise PluginLoadError(
                    f"plugin folder {target} has no {MANIFEST_NAME}, no package.json 'main' and none of "
                    f'{", ".join(DEFAULT_ENTRIES)}; add a {MANIFEST_NAME} with "name" and "entry"',
                    subject=str(target),
                )
            entry, name = found, target.name
    elif target.suffix == ".json":
        if target.name == "package.json":
            found = _default_entry(target.parent)
            if found is None:
                raise PluginLoadError(
                    f"{target} has no 'main' and {target.parent} holds none of {', '.join(DEFAULT_ENTRIES)}",
                    subject=str(target),
                )
            entry, name = found, target.parent.name
        else:
            entry, name, manifest = _from_manifest(target)
    else:
        # "index" says nothing about the plugin; its folder (or the package above src/) does.
        entry, name = target, entry_name(target)
    suffix = entry.suffix
    if suffix in PY_SUFFIXES:
        return LoadedPlugin(name=name, kind="python", entry=entry, manifest=manifest, plugin=load_python_plugin(entry))
    if suffix in JS_SUFFIXES or suffix in TS_SUFFIXES:
        plugin = NodePlugin(entry, name=name, timeout=timeout, cwd=workspace)
        return LoadedPlugin(name=name, kind="node", entry=entry, manifest=manifest, plugin=plugin)
    raise PluginLoadError(
        f"plugin entry {entry} has an unknown extension {suffix or '(none)'!r}; use one of "
        f"{', '.join(sorted(ENTRY_SUFFIXES))}",
        subject=str(entry),
    )


__all__ = [
    "LoadedPlugin",
    "NodePlugin",
    "PluginExitError",
    "PluginTimeoutError",
    "PluginToolError",
    "load_plugin",
    "load_python_plugin",
]
