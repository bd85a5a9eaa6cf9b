"""ACCESS-7 broken: a queued Write/Edit runs the read-before-write guard on the bytes the file held when
the call was queued, not on the bytes about to be replaced, so content changed between queueing and
running is overwritten.

Cell: the queued host Write/Edit (``queue_call`` then ``run_queued``) whose target changes while it
waits; a direct Write/Edit (queued and run at once) behaves as before, and access and the anchored
path are still rechecked when the entry runs (ACCESS-6). Sentence (seed ¶42; RULES.md ACCESS-7):
"Write/Edit retain their post-queue live checks and byte/version read-before-write guard": "a write
over content changed since it was read is refused."
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.errors import SandboxError
from reference_host.sandbox import AccessProvider, FileTools, SandboxRefusal, Ticket
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-7"

#: While a queued entry runs: the guard's verdict taken when it was queued (None: it passed).
_QUEUED_VERDICT: ContextVar[tuple[SandboxRefusal | None] | None] = ContextVar("queued_verdict", default=None)


class QueueTimeGuardTools(FileTools):
    def _guard(self, session_key: str, guest: str, current: bytes | None) -> None:
        verdict = _QUEUED_VERDICT.get()
        if verdict is None:
            return super()._guard(session_key, guest, current)
        if verdict[0] is not None:
            raise verdict[0]

    def _enqueue_mutation(
        self,
        label: str,
        access_provider: AccessProvider,
        file_path: object,
        session_key: str,
        make: Callable[[str, bytes | None], bytes],
    ) -> Ticket:
        refusal: SandboxRefusal | None = None
        try:
            comps = self.sandbox.resolve_guest_path(file_path)  # type: ignore[arg-type]
            guest = self.sandbox.guest_path(comps)
            try:
                then: bytes | None = self.sandbox.read_bytes(comps)
            except SandboxRefusal:
                then = None
            try:
                super()._guard(session_key, guest, then)
            except SandboxRefusal as err:
                refusal = err
        except SandboxError:
            pass  # the reference refuses it when it is queued; nothing to guard

        def make_with_queued_verdict(guest: str, current: bytes | None) -> bytes:
            token = _QUEUED_VERDICT.set((refusal,))
            try:
                return make(guest, current)
            finally:
                _QUEUED_VERDICT.reset(token)

        return super()._enqueue_mutation(label, access_provider, file_path, session_key, make_with_queued_verdict)


def factory() -> ReferenceHostAdapter:
    return mutant_host(file_tools_class=QueueTimeGuardTools)
