"""Load a JS or TypeScript plugin into a Python host through one long-lived Node.js process.

``NodePlugin(entry)`` has ``register(ctx)`` like a Python plugin: it is a :class:`~.bridged.BridgedPlugin`
whose bridge is ``node`` on ``js/bridge.mjs``, which imports the plugin (TypeScript through jiti),
runs its ``register`` (or PI's ``export default function (pi)``) and reports each ``registerTool``.
``console.*`` and ``process.stdout.write`` go to stderr there. This module holds what is Node's own:
finding the node binary, the entry's module format and the words of a failed JS load.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolconformance.plugins.loaders.bridge_connection import BRIDGE
from pytest_toolconformance.plugins.loaders.bridge_errors import (
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
    load_failure,
)
from pytest_toolconformance.plugins.loaders.bridged import BridgedPlugin, plugin_folder
from reference_host import PluginLoadError

TS_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
JS_SUFFIXES = frozenset({".mjs", ".js", ".cjs"})


class NodePlugin(BridgedPlugin):
    """A JS/TS plugin entry run in one Node.js process, installable like a Python plugin."""

    process = "node"
    language = "JS"

    def __init__(
        self,
        entry: str | os.PathLike[str],
        *,
        name: str | None = None,
        timeout: float = 5.0,
        node: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        sync_host_calls: bool = True,
        import_timeout: float | None = None,
        writable: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        """As :class:`~.bridged.BridgedPlugin`; ``node``: the node binary (default
        ``$TOOLCONFORMANCE_NODE`` or ``node`` on PATH)."""
        super().__init__(entry, name=name or entry_name(Path(entry).resolve()), timeout=timeout, cwd=cwd,
                         sync_host_calls=sync_host_calls, import_timeout=import_timeout, writable=writable)
        self.node = node
        #: How the bridge imports the entry: "ts" (through jiti) or "esm" (Node's own loader).
        self.module_format = "ts" if self.entry.suffix in TS_SUFFIXES else "esm"

    def _argv(self) -> list[str]:
        found = find_node(self.node)
        if not found:
            raise PluginLoadError(
                f"JS plugin {self.entry} needs Node.js 20.6 or newer, but no 'node' is on PATH; "
                "install Node.js or set TOOLCONFORMANCE_NODE to the node binary",
                subject=str(self.entry),
            )
        return [found, str(BRIDGE)]

    def _version_hint(self) -> str:
        return " and is Node.js 20.6 or newer"

    def _visible(self) -> list[str]:
        # The package, and every node_modules Node's resolution walks up to (with what their links point at).
        return [*super()._visible(), str(plugin_folder(self.entry)), *map(str, node_modules_of(self.entry))]

    def _load_error(self, error: Mapping[str, Any], tail: str | None) -> PluginLoadError:
        return load_failure(self.entry, plugin_folder(self.entry), self.module_format, find_node(self.node),
                            self.timeout, error, tail)


def node_modules_of(entry: Path) -> list[Path]:
    """The ``node_modules`` folders Node resolves the entry's imports from (each one above it), and
    where the packages linked into them really are (npm workspaces, ``npm link``, pnpm)."""
    found: list[Path] = []
    for folder in entry.parents:
        modules = folder / "node_modules"
        if not modules.is_dir():
            continue
        found.append(modules)
        for item in _listing(modules):
            for linked in (_listing(item) if item.name.startswith("@") else [item]):
                if linked.is_symlink():
                    found.append(linked.resolve())
    return found


def _listing(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


_BUILD_FOLDERS = frozenset({"src", "lib", "dist", "build", "out"})


def entry_name(entry: Path) -> str:
    """A plugin's name from its entry: the stem, or the folder of an ``index.*``; the package (or
    folder) above a ``src/index.ts``-style build folder, since "src" says nothing about the plugin."""
    if entry.stem != "index":
        return entry.stem
    folder = entry.parent
    if folder.name not in _BUILD_FOLDERS:
        return folder.name
    package = folder.parent / "package.json"
    try:
        data = json.loads(package.read_text("utf-8")) if package.is_file() else {}
    except (OSError, ValueError):
        data = {}
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name:
        return name.rsplit("/", 1)[-1]
    return folder.parent.name or folder.name


def find_node(node: str | None = None) -> str | None:
    """The node binary: ``node``, else ``$TOOLCONFORMANCE_NODE``, else ``node`` on PATH (None if none)."""
    return node or os.environ.get("TOOLCONFORMANCE_NODE") or shutil.which("node")


def node_available(node: str | None = None) -> bool:
    """True when a ``node`` binary can be found (for skip conditions)."""
    return bool(find_node(node))


__all__ = [
    "BRIDGE",
    "JS_SUFFIXES",
    "TS_SUFFIXES",
    "NodePlugin",
    "entry_name",
    "PluginExitError",
    "PluginTimeoutError",
    "PluginToolError",
    "node_available",
]
