"""SCHEMA-1 broken: local schemas are never checked at registration."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "SCHEMA-1"


class UncheckedContext(RegistrationContext):
    def _check(self, tool: Any, label: str, *rest: Any) -> Refusal | None:
        refusal = super()._check(tool, label, *rest)
        return None if refusal is not None and refusal.rule == "SCHEMA-1" else refusal


def factory() -> ReferenceHostAdapter:
    return context_mutant(UncheckedContext)
