"""The plugin readings: how the kit reads what a plugin's tool did (docs/readings.md).

A refusal is recognised by what it says (:data:`REFUSAL`); a call the handler should have refused
is failed only on evidence (:func:`success_evidence`); :class:`CallRecord` is one call and all the
kit saw of it, with the properties the rules judge it by.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.plugins.loaders import (
    PluginToolError,
)
from reference_host import is_transport_failure

NETWORK_CODES = frozenset({"ECONNREFUSED", "ENOTFOUND", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "EHOSTUNREACH"})


# A refusal that speaks of the session's state, not of the call's arguments: nothing to act on yet.
_STATE = r"no (active|current|open|running|matching|selected) \w+|use \w+ first"
# What an answer reports, whatever the call: a state ("Status: no active job.") or an empty result ("the log
# holds no errors"). Alone it is no refusal; beside a directive ("Use create_goal first.") the directive is.
_REPORT = re.compile(r"\b(no (active|current|open|running|matching|selected) \w+|(no|0|zero|without) errors?)\b",
                     re.IGNORECASE)
STATE_REFUSAL = re.compile(rf"\b({_STATE})\b", re.IGNORECASE)
# What a refusal says, in the words real handlers use ("Error: UI not available", "no parameters are
# accepted", "name must be a string", "Unknown parameter", "file not found", "No active goal. Use
# create_goal first.", "Please provide a query").
REFUSAL = re.compile(
    r"\b(error|errors|invalid|must|required|requires|missing|unknown|unexpected|unrecognized|unsupported"
    r"|not (allowed|available|supported|accepted|permitted|found|a valid|valid|recognized|expected)"
    r"|no \w+ (is|are) (accepted|allowed|supported|expected)|cannot|can't|unable|refuse[sd]?|expected"
    r"|no such|does not exist|doesn't exist|failed|denied|forbidden"
    r"|no valid \w+|" + _STATE +
    r"|please (provide|specify|give|pass|set|supply|enter|use|call)"
    r"|provide (a|an|the|either|one|exactly|at least)\b)\b",
    re.IGNORECASE,
)
# A throw that names the environment, not the call: a missing program, a missing key or credential,
# a missing export of an installed package. The seed throws "every transport and host fault"; these
# are host or configuration faults, the same for a valid call as for a bad one (docs/readings.md).
ENVIRONMENT_FAULT = re.compile(
    r"\bspawn \S+ ENOENT\b|\bcommand not found\b|\bnot (found )?(in|on) (your |the )?PATH\b|\bis not installed\b"
    r"|\b(api[ _-]?key|access[ _-]?token|credentials?|auth(entication)? token)\b"
    r"|\b[A-Z][A-Z0-9]*_(API_KEY|TOKEN|SECRET|KEY)\b|\benvironment variable\b|\bnot (authenticated|logged in)\b"
    r"|does not provide an export named|\bis not exported\b|\bCannot find (module|package)\b"
    r"|\bERR_(MODULE_NOT_FOUND|PACKAGE_PATH_NOT_EXPORTED)\b",
    re.IGNORECASE,
)
# The callee as written, optional chaining included (`params.mode?.trim`: the parameter is there to see).
_NOT_A_FUNCTION = re.compile(r"([\w$.?]+) is not a function")


def environment_cause(record: CallRecord, parameters: Sequence[str] = (), *, bad_call: bool = False) -> str | None:
    """Why a throw is the environment's fault (a host or configuration fault), or None.

    A throw that names a missing program, key, UI or module is. ``x is not a function`` counts only for
    a valid call and where ``x`` names none of the call's parameters (then it is an installed package's
    missing export); a bad call's (``bad_call``) is its own, whatever the variable is called
    (``text.toLowerCase is not a function`` for a number): who else gets the throw decides, not its words.
    """
    if not record.thrown:
        return None
    text = record.text
    found = ENVIRONMENT_FAULT.search(text)
    if found:
        return f"it names the environment ({found.group(0)!r})"
    if bad_call:
        return None
    names = set(parameters) | set(record.arguments if isinstance(record.arguments, Mapping) else ())
    for match in _NOT_A_FUNCTION.finditer(text):
        if not set(re.split(r"[.$?]+", match.group(1))) & names:
            return f"it names a missing function of the environment ({match.group(0)!r}), none of the parameters"
    return None


# What a handler shows when it used a value that was not there or not what it assumed.
USED_BAD_VALUE = re.compile(r"\b(undefined|NaN)\b|\[object Object\]")


def js_renderings(value: Any) -> list[str]:
    """How a JS handler would print ``value`` (String(value) and JSON), for spotting an echo."""
    out = {json.dumps(value, ensure_ascii=False, separators=(",", ":"))}
    if isinstance(value, bool):
        out.add("true" if value else "false")
    elif value is None:
        out.add("null")
    elif isinstance(value, (int, float)):
        out.add(str(int(value)) if float(value).is_integer() else repr(value))
    elif isinstance(value, str):
        out.add(value)
    elif isinstance(value, list):
        out.add(",".join("" if v is None else str(v) for v in value))
    elif isinstance(value, dict):
        out.add("[object Object]")
    # Short renderings ("0", "", "a") appear in any text by chance: no evidence.
    return sorted(r for r in out if len(r) >= 3)


def success_evidence(
    record: CallRecord,
    bad_values: Sequence[Any],
    references: list[CallRecord | None] | tuple[CallRecord | None, ...] | CallRecord | None = (),
    names: Sequence[str] = (),
) -> str | None:
    """Evidence that a call the handler should have refused was taken as valid, or None.

    Reading: a handler that does not refuse breaking arguments is failed only on what a reader of
    the seed would accept as evidence: it changed the workspace, answered nothing at all (an empty or
    null result, a fall-through ``undefined``), echoed the bad value, showed that it used a value that
    was not there (``undefined``, ``NaN``, ``[object Object]``), or answered exactly as it answers a
    call that is no refusal's business (the same call without the offending parameters, its simplest
    valid call, or ``{}``).
    """
    if record.changed:
        return f"it changed the working directory ({', '.join(record.changed[:3])})"
    if not record.flagged_error and not record.text.strip():
        return "it answered nothing (an empty or null result)"
    text = record.text
    for value in bad_values:
        for rendering in js_renderings(value):
            if rendering in text:
                return f"it echoed the bad value {rendering!r}"
    used = USED_BAD_VALUE.search(text)
    if used:
        return f"its answer shows it used a value that was not given ({used.group(0)!r})"
    same = answered_as(record, references, names)
    if same is not None:
        return f"it answered exactly as it answers {shorten(same.arguments, 120)}"
    return None


def answered_as(
    record: CallRecord,
    references: list[CallRecord | None] | tuple[CallRecord | None, ...] | CallRecord | None,
    names: Sequence[str] = (),
) -> CallRecord | None:
    """The reference call ``record`` was answered exactly as, where that answer is no refusal, or None.

    Reading (evidence first): what differs per call is masked (:func:`comparable`), and the reference's
    answer counts as a refusal only by its words alone (:attr:`CallRecord.says_no`) or where it asks for
    one of ``names`` ("Nothing to share: set file_path."): a parameter's name merely mentioned, or a
    report of state ("Status: no active job."), inside an answer a call that is no refusal's business
    also gets is no refusal of the bad call.
    """
    if not isinstance(references, (list, tuple)):
        references = [references]
    for reference in references:
        if (
            reference is not None
            and reference.answered
            and reference.arguments != record.arguments
            and not reference.says_no
            and not reference.asks_for(names)
            and reference.comparable_text == record.comparable_text
        ):
            return reference
    return None


# What differs from one call to the next in an answer that is otherwise the same: a fresh temporary path,
# a timestamp or an ISO date, a generated id, a duration. Masked before two answers are compared.
_TEMP_ROOTS = sorted({tempfile.gettempdir(), "/tmp", "/var/tmp", "/var/folders", "/private/var/folders"}, key=len,
                     reverse=True)
_PER_CALL = [
    (re.compile(r"(?:" + "|".join(re.escape(root) for root in _TEMP_ROOTS) + r")/[^\s'\"`),;\]]*"), "<tmp>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE), "<id>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"),
     "<time>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b1\d{9}(?:\d{3})?\b"), "<time>"),  # Unix seconds or milliseconds (2001 to 2286)
    (re.compile(r"\b[0-9a-f]{16,}\b", re.IGNORECASE), "<id>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds?|milliseconds?)\b"), "<duration>"),
]


def comparable(text: str, workdir: str = "") -> str:
    """``text`` with what differs per call masked (the call's working directory, temporary paths,
    timestamps and dates, generated ids, durations), to compare two calls' answers."""
    if workdir:
        text = text.replace(workdir, "<cwd>")
    for pattern, mask in _PER_CALL:
        text = pattern.sub(mask, text)
    return text


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")


_ASKING_BEFORE = (r"\b(set|pass|give|provide|specify|supply|use|choose|add|include|needs?|requires?|required|expected"
                  r"|expects|either|missing)\W+(?:\w+\W+){0,2}?")
_ASKING_AFTER = r"\W{0,3}\s*(is required|is missing|must|required|or\b)"


def _asking(name: str) -> re.Pattern[str]:
    word = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return re.compile(rf"{_ASKING_BEFORE}`?{word}|{word}`?{_ASKING_AFTER}", re.IGNORECASE)


def text_of(result: Any) -> str:
    """The text of a result, read leniently (a malformed result is REG-3's business, not this one's)."""
    if isinstance(result, Mapping):
        content = result.get("content")
        if isinstance(content, list):
            return "\n".join(str(item.get("text")) for item in content if isinstance(item, Mapping) and "text" in item)
        if isinstance(content, str):
            return content
    return "" if result is None else str(result)


@dataclass
class CallRecord:
    """One call and everything the kit saw of it."""

    tool: str
    plugin: str
    arguments: Any
    via: str  # "host" or "handler"
    refusal: dict[str, Any] | None = None
    handler_ran: bool = False
    result: Any = None
    error: BaseException | None = None
    network: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    host_text: str = ""
    details: Any = None
    workdir: str = ""

    @property
    def host_refused(self) -> bool:
        return self.refusal is not None

    @property
    def thrown(self) -> bool:
        return self.error is not None

    @property
    def transport_tagged(self) -> bool:
        return is_transport_failure(self.error)

    @property
    def raw_network_fault(self) -> bool:
        """The fault as the network stack raised it (not caught and re-raised as a new error)."""
        error = self.error
        if isinstance(error, PluginToolError):
            # A Python handler in its bridge: an OSError, as in the kit's own process; a JS one: by its code.
            return error.os_error or (error.code or "") in NETWORK_CODES or (
                error.js_name == "TypeError" and error.js_message.startswith("fetch failed")
            )
        return isinstance(error, OSError)

    @property
    def text(self) -> str:
        if self.refusal is not None:
            return self.host_text
        if self.error is not None:
            # A JS error already reads "RangeError: message"; a Python one gets its class name.
            return (
                str(self.error)
                if isinstance(self.error, PluginToolError)
                else f"{type(self.error).__name__}: {self.error}"
            )
        return text_of(self.result)

    @property
    def blob(self) -> str:
        """Text and details together, for finding echoed identity or access."""
        return (
            self.text
            + "\n"
            + shorten(
                self.details
                if self.details is not None
                else (self.result.get("details") if isinstance(self.result, Mapping) else None),
                100000,
            )
        )

    @property
    def comparable_text(self) -> str:
        """The text with what differs per call masked (:func:`comparable`), to compare two calls' answers."""
        return comparable(self.text, self.workdir)

    def names(self, name: str) -> bool:
        return bool(_word(name).search(self.text))

    @property
    def flagged_error(self) -> bool:
        """The handler returned pi's error result (``isError: true``): an answer, and not a normal one."""
        return isinstance(self.result, Mapping) and self.result.get("isError") is True

    @property
    def reads_as_refusal(self) -> bool:
        """The answer is a refusal by what it says (an error, something invalid, missing or unavailable)."""
        return self.flagged_error or bool(REFUSAL.search(self.text))

    @property
    def says_no(self) -> bool:
        """A refusal by its words alone: ``isError``, or a text that says no once a report of state or of
        an empty result ("Status: no active job.", "no errors") is taken out; a parameter's name is none."""
        return self.flagged_error or bool(REFUSAL.search(_REPORT.sub(" ", self.text)))

    def asks_for(self, names: Sequence[str]) -> bool:
        """The text asks for one of ``names`` ("set file_path", "pass file_path or latest", "query is
        required"), not merely mentions it ("status any, owner any")."""
        return any(_asking(name).search(self.text) for name in names)

    @property
    def refuses_for_state(self) -> bool:
        """A refusal only for the session's state ("No active goal. Use create_goal first.", "No active runs.
        Nothing to wait for."): it says nothing is there to act on, not that the arguments are wrong."""
        if self.host_refused or self.thrown or self.flagged_error or not STATE_REFUSAL.search(self.text):
            return False
        return not REFUSAL.search(STATE_REFUSAL.sub(" ", self.text))

    def refused(self, names: Sequence[str] = ()) -> bool:
        """A refusal: the host refused, or the handler answered text that is one.

        Reading: a refusal is recognised by what it is (a text that says no: an error, something
        invalid, missing, unknown or unavailable), not only by naming the parameter; naming it is
        advised (:meth:`names_any`), since the model acts on it best.
        """
        if self.host_refused:
            return True
        if self.thrown:
            return False
        return self.reads_as_refusal or any(self.names(n) for n in names)

    def names_any(self, names: Sequence[str]) -> bool:
        return self.host_refused or any(self.names(n) for n in names)

    @property
    def answered(self) -> bool:
        return not self.host_refused and not self.thrown

    def reproduce(self) -> str:
        how = "through the host" if self.via == "host" else "handing them to its execute directly"
        return f"call {self.tool} with {shorten(self.arguments, 600)} ({how})"
