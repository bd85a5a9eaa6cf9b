"""The reference host with a last-wins registry, as real registries are: a later registration of a
tool name replaces the earlier one, whose metadata goes with it. It declares the policy in info().

The seed says a collision's rejected registration contributes nothing, not which one is rejected, so
this host conforms: EXT-3 once failed on it for that alone."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host


def factory(call_timeout: float = 10.0) -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=lambda: Host(call_timeout=call_timeout, register_timeout=call_timeout,
                                                          collisions="last-wins"))
