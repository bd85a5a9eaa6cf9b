"""The reference host behind the adapter contract: the kit's default subject.

The contract methods live in :class:`reference_host.facade.JsonHost`, which the wire server
(``python -m pytest_toolconformance.host.wire.reference_server``) serves too; this adapter only
declares the kit's capability names, so an in-process run and a run over the wire check the very same code.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.contract import CAPABILITIES, JSON
from reference_host import JsonHost


class ReferenceHostAdapter(JsonHost):
    """Adapter over :class:`reference_host.Host`. ``host_factory`` lets a wrapper (a mutant, say)
    substitute a subclass of the host; ``.host`` is the host in use."""

    def __init__(self, *, call_timeout: float = 10.0, host_factory: Any = None) -> None:
        super().__init__(call_timeout=call_timeout, host_factory=host_factory)

    def info(self) -> JSON:
        answer = super().info()
        answer["capabilities"] = sorted(CAPABILITIES)
        return answer


def reference_adapter() -> ReferenceHostAdapter:
    """A fresh adapter over a fresh reference host: for wrappers that support part of the contract
    and hand the rest over, and for differential tests."""
    return ReferenceHostAdapter()


def factory() -> ReferenceHostAdapter:
    """``--toolconformance-host=pytest_toolconformance.host.inprocess:factory`` (the default)."""
    return reference_adapter()
