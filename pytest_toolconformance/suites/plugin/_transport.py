"""Whose transport tag a plugin can use (ERR-3, ERR-4), and the advice that works in its own host.

The tag (``markTransportFailure``/``isTransportFailure``) belongs to the seam's host, as
``elowen-plugin-shared/transport``; the kit's Python SDK stands in for it in a Python plugin. A pi
extension or an OpenClaw plugin has no such module in its host, and neither has a JS plugin that does
not import it: for those, a transport failure that leaves the tool as a throw meets ERR-4, and the
advice is to throw, never to import a module the host lacks (docs/readings.md).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pytest_toolconformance.plugins.loaders import LoadedPlugin

TRANSPORT_MODULE = "elowen-plugin-shared/transport"
_IMPORT = re.compile(r"""["']elowen-plugin-shared/transport(?:\.mjs)?["']""")
_SOURCE_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"})
_SKIPPED_FOLDERS = frozenset({"node_modules", ".git", "dist-types"})
#: Enough for any plugin's own sources; a folder beyond it is read no further (the answer stays "imports" if seen).
_MAX_FILES = 2000
_HOST_WORDS = {"pi": "pi", "openclaw": "OpenClaw"}


def _package_folder(entry: Path) -> Path:
    """The plugin's own folder: the nearest one above its entry with a package.json or plugin.json."""
    for folder in (entry.parent, *entry.parent.parents):
        if (folder / "package.json").is_file() or (folder / "plugin.json").is_file():
            return folder
    return entry.parent


@functools.lru_cache(maxsize=64)
def transport_imports(entry: Path) -> tuple[str, ...]:
    """Where the plugin's own sources import ``elowen-plugin-shared/transport`` ("index.mjs:3"), its
    dependencies (node_modules) left out."""
    folder = _package_folder(entry)
    found: list[str] = []
    seen = 0
    for path in sorted(folder.rglob("*")):
        if seen >= _MAX_FILES:
            break
        if path.suffix not in _SOURCE_SUFFIXES or _SKIPPED_FOLDERS & set(path.relative_to(folder).parts):
            continue
        seen += 1
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if _IMPORT.search(line):
                found.append(f"{path}:{number}")
    return tuple(found)


def host_without_tag(loaded: LoadedPlugin | None) -> str | None:
    """Why the plugin's host offers it no transport tag (ERR-4's tag part is not applicable), or None
    where it does (a seam plugin that imports the module, a Python plugin with the kit's SDK)."""
    if loaded is None or loaded.runtime == "python":
        return None
    if loaded.ecosystem in _HOST_WORDS:
        return f"it is loaded as {loaded.loaded_as}, and {_HOST_WORDS[loaded.ecosystem]} offers no transport tag"
    if not transport_imports(loaded.entry):
        return f"it does not import {TRANSPORT_MODULE}, so its host offers it no transport tag"
    return None


def transport_fix(loaded: LoadedPlugin | None) -> str:
    """What to do about a transport failure flattened or rethrown new, in words that work in the plugin's host."""
    if host_without_tag(loaded) is not None:
        return ("let the failure propagate, or rethrow it from your catch-all (`throw error`, or a new Error with "
                "`{ cause: error }`): a throw is what the host turns into an error result")
    return (
        "let the failure propagate, or in a catch-all write `if (isTransportFailure(error)) throw error;` and tag "
        f"failures you raise yourself with `throw markTransportFailure(error)` ({TRANSPORT_MODULE}; "
        "Python: pytest_toolconformance.sdk.mark_transport_failure)"
    )


def foreign_import(loaded: LoadedPlugin | None) -> str | None:
    """Advice for a pi extension or OpenClaw plugin that imports the seam host's transport module, which its
    own host does not provide (the kit's reference host does, so it loaded here), or None."""
    if loaded is None or loaded.runtime == "python" or loaded.ecosystem not in _HOST_WORDS:
        return None
    where = transport_imports(loaded.entry)
    if not where:
        return None
    host = _HOST_WORDS[loaded.ecosystem]
    return (
        f"imports {TRANSPORT_MODULE} ({where[0]}), which {host} does not provide: loaded by {host}, this plugin "
        f"will not load; drop the import and throw transport failures (a throw is what {host} turns into an "
        "error result)"
    )
