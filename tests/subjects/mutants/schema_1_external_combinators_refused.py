"""SCHEMA-1 broken in the cell "external: a root combinator is the owner's": the flat-object check's
combinator test runs on every registration, so an external tool whose schema has a root ``anyOf``
(an MCP server's own schema) is refused. An external schema without a root combinator registers, and
local schemas are checked as they should be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from reference_host.schemas import ROOT_COMBINATORS
from tests.subjects.mutants._calls_support import context_mutant

RULE = "SCHEMA-1"


class AllSchemasContext(RegistrationContext):
    def _check(self, tool: Any, label: str, external: Any, *rest: Any) -> Refusal | None:
        refusal = super()._check(tool, label, external, *rest)
        params = getattr(tool, "parameters", None)
        if refusal is None and external is True and isinstance(params, Mapping):
            found = [key for key in ROOT_COMBINATORS if key in params]
            if found:
                return Refusal(label, "SCHEMA-1", f"the root has {', '.join(found)}")
        return refusal


def factory() -> ReferenceHostAdapter:
    return context_mutant(AllSchemasContext)
