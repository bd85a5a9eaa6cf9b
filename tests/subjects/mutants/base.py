"""Helpers for writing mutants: an adapter over a host subclass, or over rewritten answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host

F = TypeVar("F", bound=Callable[..., Any])


def plumbing(method: F) -> F:
    """Mark an override that only re-classes what the reference host builds (a session, a sandbox):
    it changes no behaviour itself, so it is not a change tests/kit/suites/mutant_reach.py traces.
    What it re-classes to is: that class's own overrides are."""
    method.__toolconformance_plumbing__ = True  # type: ignore[attr-defined]
    return method


class AnswerMutant(ReferenceHostAdapter):
    """Override one contract method and rewrite the reference host's answer."""


def host_mutant(host_class: type[Host], **kwargs: Any) -> ReferenceHostAdapter:
    """An adapter over a broken subclass of the reference host."""
    return ReferenceHostAdapter(host_factory=lambda: host_class(**kwargs), **{})
