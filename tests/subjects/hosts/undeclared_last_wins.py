"""A last-wins host that declares no collision policy (most real hosts say nothing of it): the
checks that hold either way still run and pass; the scenario cases that assume first-wins skip."""

from __future__ import annotations

from typing import Any

from tests.subjects.hosts.last_wins import factory as last_wins


class Undeclared:
    def __init__(self) -> None:
        self._inner = last_wins()

    def info(self) -> dict[str, Any]:
        return {k: v for k, v in self._inner.info().items() if k != "collisions"}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def factory() -> Any:
    return Undeclared()
