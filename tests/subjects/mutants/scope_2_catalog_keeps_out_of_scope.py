"""SCOPE-2 broken, cell "scoped to a Project, or to an account and a platform": the host drops an
out-of-scope tool from the model's tool list and refuses it as an unknown tool, but keeps it in the
session's catalog (the catalog is read as "every tool of the instance, with what this session may
load"). A scoped tool is omitted from other sessions' model tool lists *and* catalog."""

from __future__ import annotations

from typing import Any

from reference_host.composition import in_scope
from tests.subjects.mutants.base import AnswerMutant

RULE = "SCOPE-2"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        opened = self.host.session(session)
        view = opened.view()
        listed = {entry["name"] for entry in answer["catalog"]}
        hidden = [
            {
                "name": reg.name,
                "deferred": reg.deferred,
                "origin": "external" if reg.external else "internal",
                "readOnly": reg.read_only,
                "owner": reg.plugin,
            }
            for reg in self.host.registry
            if reg.name not in listed and not in_scope(reg, view)
        ]
        answer["catalog"] = [*answer["catalog"], *hidden]
        return answer


def factory() -> Adapter:
    return Adapter()
