"""pytest-toolconformance: a conformance test kit for an agent host's plugin tool API.

The one face of the kit: every name the docs use is importable from here.

- Host implementers (docs/host-implementers.md): :class:`UnsupportedHost`, the base of an adapter
  that overrides only what its host supports; :func:`reference_adapter`, a fresh adapter over the
  reference host; :mod:`pytest_toolconformance.steps`, the scripted-plugin step interpreter a Python
  host builds the kit's test plugins with; :data:`attack_params`, the sandbox attack table as pytest params
  (docs/access-model.md); :mod:`pytest_toolconformance.measures`, the external caps and the kit's own
  measures of them (CAP-1, CAP-2), independent of the reference host's.
- Plugin authors (docs/plugin-authors.md): :func:`load_plugin`, a plugin as the kit loads it;
  :mod:`pytest_toolconformance.sdk`, what a Python plugin imports.
- Both: :class:`Finding`, the failure every check raises; :class:`ToolConformanceAdvisory`, the
  warning of an advisory finding; :class:`StepOutOfTime`, a step reported errored;
  :mod:`pytest_toolconformance.strategies`, the public Hypothesis strategies.
"""

import sys


def _not_for_assertion_rewriting(*packages: str) -> None:
    # pytest rewrites the asserts of every module of a plugin's distribution. The kit's checks fail
    # with findings, not asserts, so none of its modules needs it, and where PYTHONDONTWRITEBYTECODE is
    # set (many CI images) pytest would rewrite and compile all of them on every run, ignoring the
    # bytecode pip compiled at install (2 s at idle, 10-15 s on a loaded machine). Undone here, in the
    # first module pytest imports, so the rest import as ordinary modules; pytest keeps no public way.
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if isinstance(marked, set) and isinstance(cache, dict):
            marked.difference_update(packages)
            cache.clear()


_not_for_assertion_rewriting("pytest_toolconformance", "reference_host")

from typing import Any  # noqa: E402 - after the line above, on purpose, as every import below

from pytest_toolconformance.findings import Finding, StepOutOfTime, ToolConformanceAdvisory  # noqa: E402
from pytest_toolconformance.host.contract import UnsupportedHost  # noqa: E402
from pytest_toolconformance.host.inprocess import reference_adapter  # noqa: E402
from pytest_toolconformance.version import __version__  # noqa: E402

# Imported when first used, so that `import pytest_toolconformance` (every pytest run where the kit
# is installed) does not load Hypothesis' strategies, the plugin loaders or the sandbox table.
_LAZY = {
    "attack_params": ("pytest_toolconformance.host.attacks", "attack_params"),
    "load_plugin": ("pytest_toolconformance.plugins.loaders", "load_plugin"),
    "strategies": ("pytest_toolconformance.strategies", None),
    "sdk": ("pytest_toolconformance.sdk", None),
    "steps": ("pytest_toolconformance.steps", None),
    "measures": ("pytest_toolconformance.measures", None),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = importlib.import_module(module)
    return value if attribute is None else getattr(value, attribute)


__all__ = [
    "Finding",
    "StepOutOfTime",
    "ToolConformanceAdvisory",
    "UnsupportedHost",
    "__version__",
    "attack_params",
    "load_plugin",
    "measures",
    "reference_adapter",
    "sdk",
    "steps",
    "strategies",
]
