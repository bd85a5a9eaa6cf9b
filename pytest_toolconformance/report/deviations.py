"""Known deviations: rules (or single tests) a host declares it breaks on purpose, with a reason.

The file is TOML or JSON, chosen by extension, of the same shape::

    [[deviation]]
    rule = "CAP-1"
    reason = "descriptions are capped at 1,024 bytes until v3"
    link = "https://tracker.example/HOST-12"   # optional

    [[deviation]]
    rule = "REG-6"
    checks = ["test_reg6_validation_runs_after_hooks", "test_scenario[REG-6-reg/validation-after-hooks]"]
    reason = "..."

    [[deviation]]
    test = "suite_scenarios.py::test_scenario[CAP-2-cap/definition-cap]"
    reason = "..."

A declared rule that fails is reported as ``deviation`` and does not fail the run; a declared rule
that passes is *stale* and fails the run, so the file never outlives the bug it excuses. An entry
with ``checks`` covers only those checks of its rule (a check function's name covers all its cases,
``name[case]`` one case): another check of the rule that fails still fails the run, and a named check
that passes is stale even while the rule fails elsewhere, so a reason cannot outlive what it explains.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_toolconformance.rules import all_rules

FORMAT_HINT = (
    'each entry is [[deviation]] with rule = "ID" (optionally checks = ["test_name", "test_name[case]"]) or '
    'test = "NODE-ID", reason = "..." and optional link = "..."'
)
_KEYS = {"rule", "checks", "test", "reason", "link"}
#: The reason of an entry that --toolconformance-deviations-update wrote: a person must replace it.
PLACEHOLDER = (
    "TODO: say why the host deviates from this rule (a person must write this; the kit refuses the entry until then)"
)


class DeviationsError(ValueError):
    """A deviations file that cannot be used; the message is one line naming the file and the entry."""


@dataclass(frozen=True)
class Deviation:
    index: int  # 1-based position in the file, so a message can point at the entry
    reason: str
    rule: str | None = None
    test: str | None = None
    link: str | None = None
    #: The checks of ``rule`` the entry covers (none: every check of the rule).
    checks: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """How the entry is named in messages: ``rule = "CAP-1"`` or ``test = "..."``."""
        return f'rule = "{self.rule}"' if self.rule is not None else f'test = "{self.test}"'

    def describe(self, source: str) -> str:
        return f"entry {self.index} ({self.key}) in {source}"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"entry": self.index, "reason": self.reason}
        if self.rule is not None:
            out["rule"] = self.rule
        if self.test is not None:
            out["test"] = self.test
        if self.checks:
            out["checks"] = list(self.checks)
        if self.link is not None:
            out["link"] = self.link
        return out

    def covers(self, nodeid: str) -> bool:
        """Whether this rule entry covers a test of its rule: every test, or one its ``checks`` name."""
        return not self.checks or any(check_matches(check, nodeid) for check in self.checks)

    def matches_test(self, nodeid: str) -> bool:
        """A ``test`` entry matches a node id exactly, or by its tail: the suites live in site-packages,
        so the path part of a node id differs between machines while ``file.py::name[param]`` does not."""
        if self.test is None:
            return False
        if self.test == nodeid:
            return True
        want_path, sep, want_rest = self.test.partition("::")
        path, _, rest = nodeid.partition("::")
        if not sep or want_rest != rest:
            return False
        return path.endswith("/" + want_path) or Path(path).name == want_path


def check_matches(check: str, nodeid: str) -> bool:
    """``check`` names the test ``nodeid``: by its function name (every case of it), by ``name[case]``, or
    either after ``file.py::``."""
    tail = nodeid.rsplit("::", 1)[-1]
    want = check.rsplit("::", 1)[-1]
    if "::" in check and not nodeid.partition("::")[0].endswith(check.rsplit("::", 1)[0]):
        return False
    return want == tail or ("[" not in want and tail.split("[", 1)[0] == want)


@dataclass(frozen=True)
class Deviations:
    source: str
    entries: tuple[Deviation, ...] = ()

    def for_test(self, nodeid: str, rules: Sequence[str]) -> Deviation | None:
        """The entry that excuses a failure of this test: its own entry, or one covering every rule it
        checks (a test of two rules fails for either, so one excused rule cannot excuse it)."""
        for entry in self.entries:
            if entry.matches_test(nodeid):
                return entry
        by_rule = {e.rule: e for e in self.entries if e.rule is not None and e.covers(nodeid)}
        if rules and all(rule in by_rule for rule in rules):
            return by_rule[rules[0]]
        return None

    def for_rule(self, rule: str) -> Deviation | None:
        return next((e for e in self.entries if e.rule == rule), None)


def _fail(source: str, where: str, problem: str) -> DeviationsError:
    return DeviationsError(f"--toolconformance-deviations={source}: {where}: {problem}")


def _parse(path: Path, source: str) -> Any:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise _fail(source, "file", "does not exist; fix the path or drop the option") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(source, "file", f"cannot be read ({exc}); fix the file") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            return tomllib.loads(text)
        if suffix == ".json":
            return json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        kind = suffix[1:].upper()
        raise _fail(source, "file", f"is not valid {kind} ({exc}); fix the syntax") from None
    raise _fail(source, "file", f"has extension {suffix or '(none)'!r}; use .toml or .json")


def _entry(raw: Any, index: int, source: str, known: Iterable[str], placeholders: bool) -> Deviation:
    where = f"entry {index}"
    if not isinstance(raw, Mapping):
        raise _fail(source, where, f"is {type(raw).__name__}, not a table/object; {FORMAT_HINT}")
    name = f'rule = "{raw["rule"]}"' if "rule" in raw else (f'test = "{raw["test"]}"' if "test" in raw else None)
    if name:
        where = f"{where} ({name})"
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise _fail(source, where, f"has unknown key(s) {', '.join(unknown)}; {FORMAT_HINT}")
    if ("rule" in raw) == ("test" in raw):
        raise _fail(source, where, f"must name exactly one of rule or test; {FORMAT_HINT}")
    for key in ("rule", "test", "reason", "link"):
        if key in raw and (not isinstance(raw[key], str) or not raw[key].strip()):
            raise _fail(source, where, f"{key} must be a non-empty string")
    checks = raw.get("checks", [])
    if "checks" in raw and (
        "rule" not in raw
        or not isinstance(checks, list)
        or not checks
        or not all(isinstance(c, str) and c.strip() for c in checks)
    ):
        raise _fail(
            source,
            where,
            'checks goes with rule and is a non-empty list of check names, such as ["test_name", "test_name[case]"]',
        )
    if "reason" not in raw:
        raise _fail(
            source, where, "has no reason; say why the host deviates (a deviation without a reason is not reviewable)"
        )
    if raw["reason"].strip() == PLACEHOLDER and not placeholders:
        raise _fail(
            source,
            where,
            "reason is still the placeholder --toolconformance-deviations-update wrote; "
            "write why the host deviates, or delete the entry",
        )
    rule = raw.get("rule")
    if rule is not None and rule not in known:
        raise _fail(
            source,
            where,
            f"rule {rule} is not a rule of this kit (the report lists them all); fix the ID or delete the entry",
        )
    return Deviation(
        index=index,
        reason=raw["reason"].strip(),
        rule=rule,
        test=raw.get("test"),
        link=raw.get("link"),
        checks=tuple(c.strip() for c in checks),
    )


def load_deviations(path: str | Path, *, source: str | None = None, updating: bool = False) -> Deviations:
    """Read and check a deviations file; anything wrong is a :class:`DeviationsError` in one line.
    ``updating`` (--toolconformance-deviations-update): a missing file is empty, placeholders pass."""
    path = Path(path)
    source = source or str(path)
    if updating and not path.exists():
        return Deviations(source=source)
    doc = _parse(path, source)
    if not isinstance(doc, Mapping) or set(doc) - {"deviation"}:
        raise _fail(source, "file", f"must hold only a list named deviation; {FORMAT_HINT}")
    raw_entries = doc.get("deviation", [])
    if not isinstance(raw_entries, list):
        raise _fail(source, "deviation", f"must be a list; {FORMAT_HINT}")
    known = all_rules()
    entries = [_entry(raw, i, source, known, updating) for i, raw in enumerate(raw_entries, start=1)]
    seen: dict[str, int] = {}
    for entry in entries:
        if entry.key in seen:
            raise _fail(
                source, f"entry {entry.index} ({entry.key})", f"repeats entry {seen[entry.key]}; delete one of them"
            )
        seen[entry.key] = entry.index
    return Deviations(source=source, entries=tuple(entries))


def updated(
    deviations: Deviations,
    failed_rules: Sequence[str],
    stale: Iterable[Deviation],
    stale_checks: Mapping[int, set[str]] | None = None,
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(entries, added, removed): the file's entries without the stale ones (an entry that names checks
    loses only its stale checks, and goes when none is left), plus a placeholder entry for every failed
    rule no entry covers yet."""
    stale_checks = stale_checks or {}
    trimmed: dict[int, Deviation] = {}
    for entry in stale:
        left = tuple(c for c in entry.checks if c not in stale_checks.get(entry.index, set()))
        if entry.checks and stale_checks.get(entry.index) and left:
            trimmed[entry.index] = replace(entry, checks=left)
    stale_keys = {e.key for e in stale if e.index not in trimmed}
    kept = [trimmed.get(e.index, e) for e in deviations.entries if e.key not in stale_keys]
    covered = {e.rule for e in kept if e.rule is not None}
    added = [rule for rule in dict.fromkeys(failed_rules) if rule not in covered]
    entries = [{k: v for k, v in e.as_json().items() if k != "entry"} for e in kept]
    entries += [{"rule": rule, "reason": PLACEHOLDER} for rule in added]
    return entries, added, sorted(stale_keys)


def dump(entries: Sequence[Mapping[str, Any]], path: Path) -> str:
    """The text of a deviations file: TOML or JSON by the file's extension."""
    if path.suffix.lower() == ".json":
        return json.dumps({"deviation": list(entries)}, indent=2, ensure_ascii=False) + "\n"
    blocks = []
    for entry in entries:
        # A JSON string is a valid TOML basic string (the same escapes).
        lines = ["[[deviation]]"] + [
            f"{key} = {json.dumps(entry[key], ensure_ascii=False)}"
            for key in ("rule", "checks", "test", "reason", "link")
            if key in entry
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n" if blocks else "# known deviations: none\n"


_HEADER = re.compile(r"(?m)^[ \t]*\[\[deviation\]\][ \t]*(?:#.*)?$")
#: A checks line: a TOML array of basic strings (a check's name holds brackets: test_scenario[...]).
_CHECKS = re.compile(r'(?m)^([ \t]*checks[ \t]*=[ \t]*)\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*\]')


def _comments_above(text: str, header: int) -> int:
    """Where an entry's block starts: at the comment lines right above its header (none blank between)."""
    start = header
    while start > 0:
        line_start = text.rfind("\n", 0, start - 1) + 1
        if not text[line_start:start].lstrip().startswith("#"):
            break
        start = line_start
    return start


def rewrite(
    text: str, path: Path, deviations: Deviations, entries: Sequence[Mapping[str, Any]], added: Sequence[str]
) -> str:
    """The file's new text after an update (``entries``, from :func:`updated`): a JSON file is written
    afresh (:func:`dump`); a TOML file keeps its text and its comments, less the blocks of the entries
    removed, with a trimmed entry's checks line rewritten and the added entries after the rest."""
    headers = [match.start() for match in _HEADER.finditer(text)]
    if path.suffix.lower() == ".json" or len(headers) != len(deviations.entries):
        return dump(entries, path)  # (a TOML file in another form, say inline tables, is written afresh too)
    starts = [_comments_above(text, header) for header in headers]
    now = {(f'rule = "{e["rule"]}"' if "rule" in e else f'test = "{e["test"]}"'): e for e in entries}
    pieces = [text[: starts[0]] if starts else text]
    for entry, start, end in zip(deviations.entries, starts, [*starts[1:], len(text)], strict=True):
        kept = now.get(entry.key)
        if kept is None:
            continue
        block = text[start:end]
        if tuple(kept.get("checks", ())) != entry.checks:
            checks = json.dumps(list(kept["checks"]), ensure_ascii=False)
            block = _CHECKS.sub(lambda match, checks=checks: match[1] + checks, block, count=1)
        pieces.append(block)
    out = "".join(pieces)
    new = [e for e in entries if e.get("rule") in added and e.get("reason") == PLACEHOLDER]
    if new:
        out = out.rstrip("\n") + ("\n\n" if out.strip() else "") + dump(new, path)
    return out
