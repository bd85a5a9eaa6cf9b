"""Helpers for writing mutants: an adapter over a host subclass, or over rewritten answers."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host


class AnswerMutant(ReferenceHostAdapter):
    """Override one contract method and rewrite the reference host's answer."""


def host_mutant(host_class: type[Host], **kwargs: Any) -> ReferenceHostAdapter:
    """An adapter over a broken subclass of the reference host."""
    return ReferenceHostAdapter(host_factory=lambda: host_class(**kwargs), **{})
