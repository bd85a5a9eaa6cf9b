"""Import a Python plugin entry file under a unique module name."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from reference_host import PluginLoadError


def _module_name(path: Path) -> str:
    # Unique per file, stable per path: two plugins both called plugin.py never collide.
    digest = hashlib.sha1(str(path).encode("utf-8")).hexdigest()[:12]
    stem = "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    return f"_toolconformance_plugin_{stem}_{digest}"


def _import_failure(exc: Exception) -> str:
    """What went wrong in a plugin's module body, and what to do about it."""
    if isinstance(exc, SyntaxError):
        return (
            f"SyntaxError: {exc.msg} at line {exc.lineno}, column {exc.offset}. Fix the syntax error and load it again"
        )
    if isinstance(exc, ImportError):
        return f"{type(exc).__name__}: {exc}. Install the missing package or fix the import"
    return f"importing it raised {type(exc).__name__}: {exc}. Fix the module's top-level code"


def load_python_plugin(path: Path) -> Any:
    """Import ``path`` and return the module; it must define ``register(ctx)``.

    The entry's folder is on ``sys.path`` only while the module body runs, so that a plugin can
    import its sibling modules at top level without the folder leaking into later imports.
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise PluginLoadError(f"Python plugin {path} does not exist; check the entry path", subject=str(path))
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginLoadError(f"Python plugin {path} cannot be imported (not a .py source file?)", subject=str(path))
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    # Registered before running so dataclasses, pickling and self-imports find the module.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise PluginLoadError(
            f"Could not load Python plugin {path}: {_import_failure(exc)}", subject=str(path)
        ) from exc
    finally:
        if added:
            try:
                sys.path.remove(folder)
            except ValueError:
                pass
    if not callable(getattr(module, "register", None)):
        sys.modules.pop(name, None)
        raise PluginLoadError(
            f"Python plugin {path} is not a plugin: it defines no register(ctx). Add 'def register(ctx): ...' "
            "(sync or async) that calls ctx.register_tool(define_tool(...))",
            subject=str(path),
        )
    return module
