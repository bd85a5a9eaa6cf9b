"""SCHEMA-1 broken: a registration that passes ``external: false`` explicitly skips the flat-object
check, as if any explicit ``external`` option meant "the schema is someone else's".

The cell: a local tool registered with an explicit ``external: false`` (the option omitted is still
checked, and refused, as in the reference host). Its root-combinator schema is accepted and advertised.

The sentence broken (RULES.md SCHEMA-1; seed): "A host refuses a local (non-external) schema that
breaks this at registration, with an error naming the tool and the rule, and the tool is not
advertised" / "an explicit false stays internal".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from reference_host.schemas import flat_object_problem
from reference_host.tools import Tool
from tests.subjects.mutants._calls_support import context_mutant

RULE = "SCHEMA-1"

_FLAT = {"type": "object", "properties": {}}


class ExplicitOptionContext(RegistrationContext):
    def _check(
        self,
        tool: Any,
        label: str,
        external: Any,
        owner_user_id: Any,
        project_id: Any,
        platform: Any,
        unknown: Mapping[str, Any],
    ) -> Refusal | None:
        if external is False and isinstance(tool, Tool) and flat_object_problem(tool.parameters):
            # Every other check as the reference host runs it, on a stand-in schema that is flat.
            tool = replace(tool, parameters=_FLAT)
        return super()._check(tool, label, external, owner_user_id, project_id, platform, unknown)


def factory() -> ReferenceHostAdapter:
    return context_mutant(ExplicitOptionContext)
