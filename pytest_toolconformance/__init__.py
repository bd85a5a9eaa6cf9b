"""pytest-toolconformance: a conformance test kit for an agent host's plugin tool API.

For host implementers (docs/host-implementers.md): :class:`UnsupportedHost`, the base of an adapter
that overrides only what its host supports, and :func:`reference_adapter`, a fresh adapter over
the reference host.
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

from pytest_toolconformance.host.contract import UnsupportedHost  # noqa: E402 - after the line above, on purpose
from pytest_toolconformance.host.inprocess import reference_adapter  # noqa: E402

__version__ = "0.1.0"

__all__ = ["UnsupportedHost", "__version__", "reference_adapter"]
