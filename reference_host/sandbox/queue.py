"""The mutation queue: Write/Edit entries run one at a time, in order, each checking access when it runs.

ACCESS-6: nothing is checked or done when an entry is queued; the entry itself reads the live
access and rechecks its anchored path at the moment it runs.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

ToolResult = dict[str, Any]


class Ticket:
    """One queued mutation; ``result`` is set once it has run."""

    def __init__(self, ticket_id: int, label: str, run: Callable[[], ToolResult]) -> None:
        self.id = ticket_id
        self.label = label
        self._run = run
        self.result: ToolResult | None = None
        self.error: BaseException | None = None
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        """Whether the entry has run."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> ToolResult | None:
        """Block until the entry has run; re-raise what it raised."""
        self._done.wait(timeout)
        if self.error is not None:
            raise self.error
        return self.result

    def __repr__(self) -> str:
        return f"Ticket({self.id}, {self.label!r}, done={self.done})"


class MutationQueue:
    """A FIFO of mutations; every entry does its own live access check when it runs (ACCESS-6)."""

    def __init__(self) -> None:
        self._items: deque[Ticket] = deque()
        self._lock = threading.Lock()
        # Entries run one at a time and in order, whoever drains.
        self._run_lock = threading.Lock()
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def enqueue(self, run: Callable[[], ToolResult], *, label: str = "") -> Ticket:
        """Queue ``run``; nothing is checked or done until it runs."""
        ticket = Ticket(next(self._ids), label, run)
        with self._lock:
            self._items.append(ticket)
        return ticket

    def run_next(self) -> Ticket | None:
        """Run the oldest entry; None when the queue is empty."""
        with self._run_lock:
            with self._lock:
                if not self._items:
                    return None
                ticket = self._items.popleft()
            try:
                ticket.result = ticket._run()
            except BaseException as exc:
                ticket.error = exc
                raise
            finally:
                ticket._done.set()
            return ticket

    def drain(self) -> list[Ticket]:
        """Run entries until the queue is empty; returns those this call ran."""
        ran: list[Ticket] = []
        while (ticket := self.run_next()) is not None:
            ran.append(ticket)
        return ran
