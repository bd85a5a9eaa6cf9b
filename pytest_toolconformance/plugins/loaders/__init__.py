"""Plugin loaders: a plugin folder, manifest or entry file to an object with ``register(ctx)``, each in a
confined bridge process of its own (JS and TypeScript in Node.js, Python in the kit's interpreter), or
imported in process, guarded, only where no bridge can run (no POSIX pipes), which the report says."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_toolconformance import confinement
from pytest_toolconformance.plugins.loaders import openclaw
from pytest_toolconformance.plugins.loaders.bridged import BridgedPlugin
from pytest_toolconformance.plugins.loaders.node import (
    JS_SUFFIXES,
    TS_SUFFIXES,
    NodePlugin,
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
    entry_name,
)
from pytest_toolconformance.plugins.loaders.openclaw import OpenClawPlugin
from pytest_toolconformance.plugins.loaders.python import load_python_plugin
from pytest_toolconformance.plugins.loaders.python_process import PythonPlugin
from reference_host import PluginLoadError

MANIFEST_NAME = "plugin.json"
PY_SUFFIXES = frozenset({".py"})
ENTRY_SUFFIXES = PY_SUFFIXES | JS_SUFFIXES | TS_SUFFIXES
# Looked for, in order, in a folder without a manifest, after package.json's "pi.extensions" and before its
# "main": pi's own order (index.ts, then index.js), then the kit's (index.mjs, plugin.py).
DEFAULT_ENTRIES = ("index.ts", "index.js", "index.mjs", "plugin.py")


@dataclass
class LoadedPlugin:
    """A plugin ready to install: ``plugin.register(ctx)`` registers its tools."""

    name: str
    runtime: Literal["python", "node"]
    entry: Path
    manifest: dict[str, Any] | None
    plugin: Any

    @property
    def ecosystem(self) -> Literal["openclaw", "pi", "seam"]:
        """Which host's plugin API the plugin was loaded with: OpenClaw's ``api``
        (an ``openclaw.plugin.json`` folder), pi's ``ExtensionAPI`` (a default-exported function), or
        the seam's ``register(ctx)``."""
        if isinstance(self.plugin, OpenClawPlugin):
            return "openclaw"
        return "pi" if getattr(self.plugin, "form", None) == "pi-extension" else "seam"

    @property
    def loaded_as(self) -> str:
        """The ecosystem in words, for the report ("loaded as an OpenClaw plugin")."""
        seam = "a Python plugin (register(ctx))" if self.runtime == "python" else "a JS plugin (register(ctx))"
        return {"openclaw": "an OpenClaw plugin", "pi": "a pi extension"}.get(self.ecosystem, seam)

    @property
    def in_process(self) -> bool:
        """The plugin's code runs in the kit's own process (a Python plugin where no bridge can run)."""
        return not isinstance(self.plugin, BridgedPlugin)


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


def pi_extension_entries(folder: Path) -> list[Path]:
    """The entries a folder declares as pi does: ``package.json``'s ``"pi": {"extensions": [...]}``, each
    that exists (a folder by its ``index.ts`` or ``index.js``), in order; empty when it declares none.

    This is pi 1.6.0's ``resolveExtensionEntries`` (dist/core/extensions/loader.js): a declared path
    that does not exist is passed over, and ``main`` is never read.
    """
    package = folder / "package.json"
    if not package.is_file():
        return []
    data = _read_json(package, "package.json")
    pi = data.get("pi") if isinstance(data, dict) else None
    declared = pi.get("extensions") if isinstance(pi, dict) else None
    entries: list[Path] = []
    for item in declared if isinstance(declared, list) else []:
        if not isinstance(item, str) or not item:
            continue
        candidate = (folder / item).resolve()
        if candidate.is_dir():
            candidate = next((candidate / n for n in ("index.ts", "index.js") if (candidate / n).is_file()), candidate)
        if candidate.is_file():
            entries.append(candidate)
    return entries


def package_name(folder: Path) -> str | None:
    """The ``name`` of the folder's ``package.json``, without its npm scope, or None."""
    package = folder / "package.json"
    if not package.is_file():
        return None
    data = _read_json(package, "package.json")
    name = data.get("name") if isinstance(data, dict) else None
    return name.rsplit("/", 1)[-1] if isinstance(name, str) and name else None


def _default_entry(folder: Path) -> Path | None:
    entries = pi_extension_entries(folder)
    if len(entries) > 1:
        listed = ", ".join(str(e.relative_to(folder)) if e.is_relative_to(folder) else str(e) for e in entries)
        raise PluginLoadError(
            f"package.json in {folder} declares {len(entries)} pi extensions ({listed}); give them one by one "
            "(--toolconformance-plugin=FOLDER checks them all when given on the command line)",
            subject=str(folder / "package.json"),
        )
    if entries:
        return entries[0]
    for name in DEFAULT_ENTRIES:
        candidate = folder / name
        if candidate.is_file():
            return candidate.resolve()
    package = folder / "package.json"
    if package.is_file():
        # npm's "main" comes last: pi never reads it, and `npm init` sets it to an index.js that is not there.
        data = _read_json(package, "package.json")
        main = data.get("main") if isinstance(data, dict) else None
        if isinstance(main, str) and main and (folder / main).is_file():
            return (folder / main).resolve()
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


#: Python plugins run in a bridge process where the host-call pipe works (POSIX).
PYTHON_BRIDGE_AVAILABLE = not confinement.PYTHON_PLUGINS_IN_PROCESS


def locate_plugin(path: str | os.PathLike[str]) -> tuple[Path, str, dict[str, Any] | None]:
    """The entry file, name and manifest (or None) of the plugin at ``path`` (a folder, a manifest,
    a ``package.json`` or an entry file), without loading it; a :class:`PluginLoadError` says why not."""
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
        if not manifest_path.is_file() and openclaw.is_openclaw_plugin(target):
            # Named by its manifest's id, as OpenClaw names it; that manifest is OpenClaw's, and the seam's
            # reference host gets none (see load_plugin).
            entry, found = openclaw.locate(target)
            return entry, found.id, None
        if manifest_path.is_file():
            entry, name, manifest = _from_manifest(manifest_path)
        else:
            found = _default_entry(target)
            if found is None:
                raise PluginLoadError(
                    f"plugin folder {target} has no {MANIFEST_NAME}, no pi extension in its package.json "
                    f'("pi": {{"extensions": [...]}}), none of {", ".join(DEFAULT_ENTRIES)} and no package.json '
                    f'\'main\' '
                    f'that exists; add one of them, or a {MANIFEST_NAME} with "name" and "entry"',
                    subject=str(target),
                )
            entry, name = found, package_name(target) or target.name
    elif target.suffix == ".json":
        if target.name == "package.json":
            found = _default_entry(target.parent)
            if found is None:
                raise PluginLoadError(
                    f"{target} declares no pi extension and names no 'main' that exists, and {target.parent} holds "
                    f"none of {', '.join(DEFAULT_ENTRIES)}",
                    subject=str(target),
                )
            entry, name = found, package_name(target.parent) or target.parent.name
        else:
            entry, name, manifest = _from_manifest(target)
    else:
        # "index" says nothing about the plugin; its folder (or the package above src/) does.
        entry, name = target, entry_name(target)
    return entry, name, manifest


def confinement_of(path: str | os.PathLike[str]) -> str:
    """What confines the plugin at ``path`` when the kit checks it here (for the report)."""
    try:
        entry, _, _ = locate_plugin(path)
    except PluginLoadError:
        return "not loaded"
    return confinement.of_plugin(in_process=entry.suffix in PY_SUFFIXES and not PYTHON_BRIDGE_AVAILABLE)


def loaded_as_of(path: str | os.PathLike[str]) -> str:
    """How the kit loads the plugin at ``path``, in words, without loading it (for the report): an
    OpenClaw plugin by its manifest, a pi extension by package.json's ``pi.extensions``, else by language."""
    try:
        entry, _, _ = locate_plugin(path)
    except PluginLoadError:
        return "not loaded"
    folder = Path(path).resolve()
    if folder.is_dir() and not (folder / MANIFEST_NAME).is_file() and openclaw.is_openclaw_plugin(folder):
        return "an OpenClaw plugin"
    if entry.suffix in PY_SUFFIXES:
        return "a Python plugin (register(ctx))"
    if folder.is_dir() and entry in pi_extension_entries(folder):
        return "a pi extension"
    return "a JS plugin (register(ctx), or a pi extension's default export)"


def load_plugin(
    path: str | os.PathLike[str],
    *,
    timeout: float = 5.0,
    workspace: str | os.PathLike[str] | None = None,
    in_process: bool | None = None,
) -> LoadedPlugin:
    """Load a plugin from a folder (with ``plugin.json`` or a default entry), a manifest or an entry file.

    The name is the manifest's ``name``, else the folder's name, else the entry's stem (the folder's
    name for an ``index.*`` entry). Every plugin starts its bridge process on ``register``; ``timeout``
    bounds each request to it, ``workspace`` is where it runs (pi's ``ctx.cwd`` outside a call).
    ``in_process=True`` imports a Python entry into this process instead, now (the default only where
    no bridge can run: :data:`PYTHON_BRIDGE_AVAILABLE`); its code is then confined by nothing but an
    in-process network guard.
    """
    entry, name, manifest = locate_plugin(path)
    suffix = entry.suffix
    if suffix in PY_SUFFIXES:
        if in_process if in_process is not None else not PYTHON_BRIDGE_AVAILABLE:
            return LoadedPlugin(name=name, runtime="python", entry=entry, manifest=manifest,
                                plugin=load_python_plugin(entry))
        return LoadedPlugin(name=name, runtime="python", entry=entry, manifest=manifest,
                            plugin=PythonPlugin(entry, name=name, timeout=timeout, cwd=workspace))
    if suffix in JS_SUFFIXES or suffix in TS_SUFFIXES:
        folder = Path(path).resolve()
        if folder.is_dir() and not (folder / MANIFEST_NAME).is_file() and openclaw.is_openclaw_plugin(folder):
            plugin = OpenClawPlugin(entry, openclaw.read_manifest(folder), name=name, timeout=timeout, cwd=workspace)
            return LoadedPlugin(name=name, runtime="node", entry=entry, manifest=None, plugin=plugin)
        plugin = NodePlugin(entry, name=name, timeout=timeout, cwd=workspace)
        return LoadedPlugin(name=name, runtime="node", entry=entry, manifest=manifest, plugin=plugin)
    raise PluginLoadError(
        f"plugin entry {entry} has an unknown extension {suffix or '(none)'!r}; use one of "
        f"{', '.join(sorted(ENTRY_SUFFIXES))}",
        subject=str(entry),
    )


__all__ = [
    "BridgedPlugin",
    "confinement_of",
    "locate_plugin",
    "loaded_as_of",
    "LoadedPlugin",
    "PYTHON_BRIDGE_AVAILABLE",
    "PythonPlugin",
    "pi_extension_entries",
    "NodePlugin",
    "OpenClawPlugin",
    "PluginExitError",
    "PluginTimeoutError",
    "PluginToolError",
    "load_plugin",
    "load_python_plugin",
]
