"""SCHEMA-1 broken in the cell "nesting: unions, literals and optionals inside properties": the
flat-object check searches the whole local schema for combinators, so a property that is a union
(``Type.Union`` gives ``anyOf``) is refused as if it were at the root. Flat schemas of plain
properties register, and root combinators are refused as they should be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "SCHEMA-1"


def has_combinator(node: Any) -> bool:
    if isinstance(node, Mapping):
        return any(key in node for key in ("anyOf", "oneOf", "allOf")) or any(map(has_combinator, node.values()))
    if isinstance(node, list):
        return any(map(has_combinator, node))
    return False


class DeepContext(RegistrationContext):
    def _check(self, tool: Any, label: str, external: Any, *rest: Any) -> Refusal | None:
        refusal = super()._check(tool, label, external, *rest)
        if refusal is None and external is not True and has_combinator(getattr(tool, "parameters", None)):
            return Refusal(label, "SCHEMA-1", "local tool schema is not flat: it has a combinator")
        return refusal


def factory() -> ReferenceHostAdapter:
    return context_mutant(DeepContext)
