"""What a bridged plugin's notes do on the host's side (``plugins/loaders/bridge_notes.py``), without a process."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_toolconformance.plugins.loaders.bridge_notes import CallNotes, FirstLoadNotes, log_to
from reference_host import RegistrationError


class Logger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def info(self, message: str) -> None:
        self.lines.append(("info", message))

    def warning(self, message: str) -> None:
        self.lines.append(("warning", message))


class Ctx:
    """A host ctx that records what it was asked, and refuses a tool named ``refused``."""

    def __init__(self, identity: Any = None) -> None:
        self.logger = Logger()
        self.identity = identity
        self.reads: list[str] = []

    def current_identity(self) -> Any:
        self.reads.append("current_identity")
        return self.identity


class Registrar:
    """Stands in for the plugin API's registration: what it was handed, and the host's answer."""

    def __init__(self) -> None:
        self.notes: list[Mapping[str, Any]] = []

    def __call__(self, ctx: Any, note: Mapping[str, Any]) -> Any:
        self.notes.append(note)
        if note.get("name") == "refused":
            raise RegistrationError("the host refuses 'refused'", rule="NAME-1", subject="refused")
        return True


def first_load(ctx: Ctx) -> tuple[FirstLoadNotes, Registrar, list[Mapping[str, Any]]]:
    registrar, replies = Registrar(), []
    return FirstLoadNotes(ctx, register_tool=registrar, reply=replies.append), registrar, replies


def test_a_host_call_is_answered_with_what_the_host_said() -> None:
    ctx = Ctx(identity={"userId": "ann"})
    notes, registrar, replies = first_load(ctx)
    notes.on_message({"op": "ctx", "method": "registerTool", "args": {"name": "Echo"}})
    notes.on_message({"op": "ctx", "method": "currentIdentity"})
    assert registrar.notes == [{"name": "Echo"}] and ctx.reads == ["current_identity"]
    assert replies == [{"ok": True, "value": True}, {"ok": True, "value": {"userId": "ann"}}]
    assert notes.stash == {} and notes.deferred_error is None


def test_a_host_refusal_is_thrown_back_with_a_token_that_finds_the_hosts_own_exception() -> None:
    notes, _, replies = first_load(Ctx())
    notes.on_message({"op": "ctx", "method": "registerTool", "args": {"name": "refused"}})
    notes.on_message({"op": "ctx", "method": "teleport"})
    (refusal, unknown) = replies
    assert refusal["ok"] is False and refusal["error"]["name"] == "RegistrationError"
    assert refusal["error"]["rule"] == "NAME-1" and "refuses 'refused'" in refusal["error"]["message"]
    assert isinstance(notes.stash[refusal["error"]["token"]], RegistrationError)
    assert (
        unknown["error"]["name"] == "PluginLoadError" and "unknown host call 'teleport'" in unknown["error"]["message"]
    )
    assert len(notes.stash) == 2


def test_a_host_read_that_cannot_be_sent_is_refused_before_the_reply() -> None:
    notes, _, replies = first_load(Ctx(identity=object()))
    notes.on_message({"op": "ctx", "method": "currentIdentity"})
    assert replies[0]["ok"] is False and replies[0]["error"]["name"] == "TypeError"


def test_notes_after_the_fact_defer_the_first_failure_to_the_end_of_the_load() -> None:
    ctx = Ctx()
    notes, registrar, replies = first_load(ctx)
    notes.on_message({"op": "tool", "name": "refused"})
    notes.on_message({"op": "tool", "name": "Echo"})
    notes.on_message({"op": "read", "method": "currentIdentity"})
    notes.on_message({"op": "log", "level": "warning", "message": "loaded"})
    assert [n["name"] for n in registrar.notes] == ["refused", "Echo"]
    assert isinstance(notes.deferred_error, RegistrationError) and replies == []
    assert ctx.reads == ["current_identity"]  # the mirror's read made on the host while register runs
    assert ctx.logger.lines == [("warning", "loaded")]


def test_a_calls_notes_are_collected_and_logged_only_where_there_is_a_ctx() -> None:
    ctx = Ctx()
    with_ctx, headless = CallNotes(ctx), CallNotes(None)
    for notes in (with_ctx, headless):
        notes.on_message({"op": "log", "level": "info", "message": "hi"})
        notes.on_message({"op": "read", "method": "currentAccess"})
        notes.on_message({"op": "tool", "name": "ignored"})
        assert notes.logs == [{"level": "info", "message": "hi"}] and notes.reads == ["currentAccess"]
    assert ctx.logger.lines == [("info", "hi")]


@pytest.mark.parametrize(("level", "expected"), [("warning", "warning"), ("debug", "info")])
def test_a_log_line_goes_to_the_level_the_logger_has(level: str, expected: str) -> None:
    ctx = Ctx()
    log_to(ctx, level, "m")
    log_to(object(), level, "nothing to log on")  # a ctx without a logger is left alone
    assert ctx.logger.lines == [(expected, "m")]
