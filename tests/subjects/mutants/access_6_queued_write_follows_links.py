"""ACCESS-6 broken, cell "a link planted at the anchored path's parent after queueing": a queued host
Write/Edit rechecks access when it runs, but only on the path's spelling; it then writes through the
host's ordinary file API, following whatever link now stands on the anchored path. So a link planted at
the path's parent after queueing redirects the write. Writes and Edits that are not queued keep the
reference host's link-safe walk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.errors import SandboxError
from reference_host.sandbox import FileTools, SandboxOp, SandboxRefusal, Ticket, ToolResult
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-6"


class PlainPathQueue(FileTools):
    """The session's file tools (the same state), with a queued mutation that writes by plain path."""

    def _enqueue_mutation(
        self, label: str, access_provider: Any, file_path: object, session_key: str, make: Any
    ) -> Ticket:
        try:
            comps = self.sandbox.resolve_guest_path(file_path) if isinstance(file_path, str) else None
        except SandboxError:
            comps = None
        if comps is None:
            return super()._enqueue_mutation(label, access_provider, file_path, session_key, make)
        guest = self.sandbox.guest_path(comps)
        target = Path(self.sandbox.root).joinpath(*comps)

        def run() -> ToolResult:
            refusal = self.sandbox.check(SandboxOp("write", guest), access_provider())
            if refusal is not None:
                return self._fail(refusal.reason, refusal.rule, file_path=guest)
            try:
                data = make(guest, target.read_bytes() if target.is_file() else None)
            except SandboxRefusal as err:
                return self._fs_fail(label, guest, err)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            version = self._remember(session_key, guest, data)
            return {"ok": True, "text": f"{label} {guest!r}: {len(data)} bytes", "file_path": guest, "version": version}

        return self.queue.enqueue(run, label=f"{label} {guest}")


class PlainQueueSession(Session):
    def queue_call(self, tool: str, args: Any) -> str:
        shared = Session.file_tools(self)
        plain = object.__new__(PlainPathQueue)
        plain.__dict__ = shared.__dict__  # the same queue, sandbox and read versions
        self.file_tools = lambda: plain  # type: ignore[method-assign]
        try:
            return super().queue_call(tool, args)
        finally:
            del self.file_tools


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlainQueueSession)
