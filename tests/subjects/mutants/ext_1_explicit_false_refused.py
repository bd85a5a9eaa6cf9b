"""EXT-1 broken in the cell "false: accepted, internal": the host treats ``external`` as a flag whose
presence means external, and refuses a registration that passes ``external: false`` ("leave the
option out for an internal tool"). ``true`` and an omitted option are handled right; a tool that
states its internal origin explicitly is not registered."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Refusal, RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-1"


class FlagContext(RegistrationContext):
    def _check(self, tool: Any, label: str, external: Any, *rest: Any) -> Refusal | None:
        if external is False:
            return Refusal(label, "EXT-1", "option external is a flag: pass true or leave it out")
        return super()._check(tool, label, external, *rest)


def factory() -> ReferenceHostAdapter:
    return context_mutant(FlagContext)
