"""RO-5 broken: a read-only sub-agent is offered every tool, not the read-only set."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference_host.composition import compose_session
from tests.subjects.mutants.base import AnswerMutant

RULE = "RO-5"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        live = self.host.session(session)
        if live.restrictions.delegated_read_only:
            return compose_session(self.host.registry, replace(live.view(), read_only_child=False)).as_dict()
        return answer


def factory() -> Adapter:
    return Adapter()
