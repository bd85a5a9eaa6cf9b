"""pytest-toolconformance: a conformance test kit for an agent host's plugin tool API.

For host implementers (docs/host-implementers.md): :class:`UnsupportedHost`, the base of an adapter
that overrides only what its host supports, and :func:`reference_adapter`, a fresh adapter over
the reference host.
"""

from pytest_toolconformance.host.contract import UnsupportedHost
from pytest_toolconformance.host.inprocess import reference_adapter

__version__ = "0.1.0"

__all__ = ["UnsupportedHost", "__version__", "reference_adapter"]
