"""SCHEMA-1 broken: only anyOf/oneOf/allOf count as root combinators; a root not, if/then/else or
$ref beside type object slips through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "SCHEMA-1"


class LaxContext(RegistrationContext):
    def _check(self, tool: Any, label: str, *rest: Any) -> Refusal | None:
        refusal = super()._check(tool, label, *rest)
        if refusal is not None and refusal.rule == "SCHEMA-1":
            params = tool.parameters
            if (
                params.get("type") == "object"
                and isinstance(params.get("properties"), Mapping)
                and not any(key in params for key in ("anyOf", "oneOf", "allOf"))
            ):
                return None
        return refusal


def factory() -> ReferenceHostAdapter:
    return context_mutant(LaxContext)
