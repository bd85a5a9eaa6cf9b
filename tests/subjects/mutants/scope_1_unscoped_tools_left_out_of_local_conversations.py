"""SCOPE-1 broken, cell "no scope: instance-wide": a local Project conversation (run on the user's own
machine) is offered the core tools and the tools scoped to its Project, account or platform, but not the
plugin tools registered without a scope ("instance-wide" read as "the server's conversations"). Without
``ownerUserId``, ``projectId`` and ``platform`` a contribution is instance-wide: every conversation gets
it. Host and managed conversations get unscoped tools as on the reference host."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN, Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-1"
ALSO = {
    "PLAN-2": "its case runs unscoped plugin tools on a local Project conversation's Build turn",
}
#: The platform no session has: an unscoped tool read as the server's is scoped out of a local conversation.
SERVER_ONLY = "<server>"


class ServerToolsSession(RescopedSession):
    def rescope(self, reg: Registration) -> Registration:
        unscoped = reg.owner_user_id is None and reg.project_id is None and reg.platform is None
        if reg.plugin == CORE_PLUGIN or not unscoped or self.spec.conversation != "local":
            return reg
        return replace(reg, platform=SERVER_ONLY)


def factory() -> ReferenceHostAdapter:
    return rescoped(ServerToolsSession)
