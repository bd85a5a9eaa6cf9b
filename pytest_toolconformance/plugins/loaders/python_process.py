"""A Python plugin run in a bridge process of its own, confined as a JS plugin's node is.

``PythonPlugin(entry)`` has ``register(ctx)`` like the plugin's module: it is a
:class:`~.bridged.BridgedPlugin` whose bridge is the kit's own interpreter on ``py/bridge.py``
(the same line protocol as the Node bridge), so a Python plugin gets the same supervisor,
namespaces, scrubbed environment and bounds as a JS one, and the kit's process never runs its code.
This module holds what is Python's own: the program, its import path and the words of a failed load.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolconformance.plugins.loaders.bridge_errors import tail_note
from pytest_toolconformance.plugins.loaders.bridged import BridgedPlugin, repository_of
from reference_host import PluginLoadError

PY_BRIDGE = Path(__file__).resolve().parent / "py" / "bridge.py"
# The folder that holds both of the kit's packages (reference_host and pytest_toolconformance).
_KIT_ROOT = Path(__file__).resolve().parents[3]
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+)$')


def bridge_python_path() -> str:
    """The bridge's ``PYTHONPATH``: the kit's folder, then the kit's own import path, so a plugin
    imports what it imported in the kit's process (its environment's packages and ``reference_host``)."""
    entries = [str(_KIT_ROOT), *(p for p in sys.path if p and os.path.isdir(p))]
    return os.pathsep.join(dict.fromkeys(entries))


class _NotATool:
    """What a plugin passed to ``register_tool`` that is not a tool, as the host's ctx is shown it."""

    def __init__(self, note: Mapping[str, Any]) -> None:
        self._repr = str(note.get("repr") or note.get("toolType"))
        if isinstance(note.get("name"), str):
            self.name = note["name"]

    def __repr__(self) -> str:
        return self._repr


class PythonPlugin(BridgedPlugin):
    """A Python plugin entry (a module with ``register(ctx)``) run in its own bridge process."""

    process = "python"
    language = "Python"
    module_format = "python"

    def __init__(
        self,
        entry: str | os.PathLike[str],
        *,
        name: str | None = None,
        timeout: float = 5.0,
        python: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        sync_host_calls: bool = True,
        import_timeout: float | None = None,
        writable: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        """As :class:`~.bridged.BridgedPlugin`; ``python``: the interpreter (default: the kit's own,
        which has the plugin's dependencies where the kit's run could import them)."""
        super().__init__(entry, name=name, timeout=timeout, cwd=cwd, sync_host_calls=sync_host_calls,
                         import_timeout=import_timeout, writable=writable)
        self.python = python or sys.executable

    def _argv(self) -> list[str]:
        return [self.python, str(PY_BRIDGE)]

    def _visible(self) -> list[str]:
        # The interpreter's installs (a venv and the Python it is made from) and the folders it imports from.
        return [*super()._visible(), sys.prefix, sys.base_prefix, sys.exec_prefix, *self._python_path()]

    def _python_path(self) -> list[str]:
        # The kit's import path but a folder that holds the plugin's whole repository (pytest puts its
        # rootdir on sys.path): the repository is in sight, read-only, yet the plugin imports from it only
        # what its own folder reaches (on its path while it imports), as where it is installed. The first
        # entry is the kit's own folder, which the bridge imports the kit from.
        repository = repository_of(self.entry)
        return [path for index, path in enumerate(bridge_python_path().split(os.pathsep))
                if index == 0 or repository is None or not repository.is_relative_to(Path(path).resolve())]

    def _bridge_env(self) -> dict[str, str]:
        # Read-only where namespaces work: no __pycache__ is written into the plugin's folder anywhere.
        return {"PYTHONPATH": os.pathsep.join(self._python_path()), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUTF8": "1"}

    def _load_message(self, *, replay: bool) -> dict[str, Any]:
        return {**super()._load_message(replay=replay), "name": self.name}

    def _version_hint(self) -> str:
        return " and can import the kit (is it installed in that environment?)"

    def _load_error(self, error: Mapping[str, Any], tail: str | None) -> PluginLoadError:
        phase = error.get("phase")
        raised = f"{error.get('name') or 'Exception'}: {error.get('message') or ''}"
        if error.get("text"):
            # The importer's own words (it names the file, what failed and what to do).
            text = str(error["text"])
        elif phase == "register":
            text = (f"register(ctx) of Python plugin {self.entry} raised {raised}. Fix the plugin so that register "
                    f"completes; none of its tools were installed{_plugin_frames(str(error.get('stack') or ''))}")
        else:
            text = f"Python plugin {self.entry}: the kit's bridge failed ({raised})"
        return PluginLoadError(text + (tail_note(tail, self.process) if tail else ""), subject=str(self.entry))

    def _tool_options(self, ctx: Any, name: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        # A Python plugin passes the host's own keywords: the host judges each (an unknown one too).
        return dict(options)

    def _tool_from_note(self, ctx: Any, note: Mapping[str, Any]) -> Any:
        if note.get("toolType") != "Tool":
            options = note.get("options")
            kwargs = dict(options) if isinstance(options, Mapping) else {}
            return ctx.register_tool(_NotATool(note), **kwargs)
        return super()._tool_from_note(ctx, note)


def _plugin_frames(stack: str, frames: int = 2) -> str:
    """The last frames of a Python traceback, as ``file:line in function`` (the plugin's own)."""
    found = [f"{m.group(1)}:{m.group(2)} in {m.group(3)}" for m in map(_FRAME.match, stack.splitlines()) if m]
    return f" (at {'; '.join(found[-frames:])})" if found else ""


__all__ = ["PY_BRIDGE", "PythonPlugin", "bridge_python_path"]
