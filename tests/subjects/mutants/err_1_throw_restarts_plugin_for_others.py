"""ERR-1 broken, cell "other sessions keep working": a plugin's tools run in one worker the sessions
share; when a handler throws, the host restarts that worker and moves the calling session to the new
one, but every other session still holds the old worker and its later calls to that plugin's tools are
refused until it is reopened. The session goes on after a throw: the throwing session and every other
session. The calling session, and other plugins' tools, work as on the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "ERR-1"


class WorkerSession(Session):
    def _generations(self) -> dict[str, int]:
        """The host's current worker generation per plugin (a restart makes a new one)."""
        return self.host.__dict__.setdefault("_worker_generations", {})

    def _held(self) -> dict[str, int]:
        """The worker generation this session holds per plugin, from its first call of that plugin."""
        return self.__dict__.setdefault("_held_generations", {})

    def _run_handler(
        self,
        reg: Registration,
        call_id: str,
        params: dict[str, Any],
        journal: dict[str, Any],
        hooks_ran: list[str],
        cwd: str | None,
    ) -> CallOutcome:
        if reg.plugin == CORE_PLUGIN:
            return super()._run_handler(reg, call_id, params, journal, hooks_ran, cwd)
        current = self._generations().get(reg.plugin, 0)
        held = self._held().setdefault(reg.plugin, current)
        if held != current:
            return self._refused(
                reg.name,
                call_id,
                journal,
                "session",
                "ERR-1",
                f"Plugin {reg.plugin!r} was restarted after a failure; reopen the session.",
            )
        outcome = super()._run_handler(reg, call_id, params, journal, hooks_ran, cwd)
        if outcome.is_error:
            self._generations()[reg.plugin] = current + 1
            self._held()[reg.plugin] = current + 1
        return outcome


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(WorkerSession)
