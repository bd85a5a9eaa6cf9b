"""The plan-file attack table, as data: PLANFILE-2/3/4/5 rows any host (or plugin) can be run against.

A row says what to plant in the real directory, which sandbox operation to ask for, and whether a
conforming host admits it. Paths in a row are *templates* over the Plan turn's own plan path, so
the same table works whatever path a host mints:

``{plan}``            the plan file, as ``currentAccess().planFile`` gives it
``{plan_dir}``        its parent directory; ``{plan_dir_name}`` that directory's last component
``{plans}``           its grandparent directory
``{plan_name}``       its last component; ``{plan_rel}`` the plan path without ``/workspace/``
``{guest_root}``      ``/workspace``, the guest path the session's ``sandboxRoot`` is mapped to
``{outside}``         a real directory beside the root (holding ``secret.txt``); never reachable
``{host_plan}``       the plan file's real path on the machine running the kit
``{plan_cyrillic}``   the plan path with one Latin letter of its name swapped for a Cyrillic look-alike
``{plan_fullwidth}``  the plan path with its last ``/`` swapped for U+FF0F FULLWIDTH SOLIDUS
``{plan_zero_width}`` the plan path with a U+200B ZERO WIDTH SPACE before the name's extension
``{plan_upper}``      the plan path with its name upper-cased

Setup entries (``setup``), each applied to the real directory before the operation:
``{"dir": guest}``, ``{"file": guest, "content": text}``, ``{"symlink": guest, "to": target}``
(``to`` is the link text: ``{outside}/...`` points out of the root, a bare name points at a
sibling), ``{"hardlink": guest, "to": real path}``, ``{"fifo": guest}`` (a named pipe) and
``{"socket": guest}`` (a Unix socket).

A row with ``plan_file`` opens its own Plan turn with that ``planFile`` in the session spec (the
NFC/NFD rows need a plan path with a composed character); a host that mints another path instead
skips the row. A row with ``via == "child"`` runs the operation in a read-only child delegated from
the Plan turn, whose delegation request asks to forward ``planFile`` and to clear ``readOnly`` and
``planMode`` (PLANFILE-5, DELEG-3).

Verdicts (:func:`verify`): whatever the row, nothing outside the root may change. A refused row
is ``admitted: false`` (or a ``sandbox`` error for a path the host cannot parse) and leaves the
root exactly as it was. An admitted row is ``admitted: true`` and really did it: the written bytes
are in the real file, the made directory exists; a paired-executor row also reports ``scope``, the
plan file's parent directory.

Plugin authors use the same rows for their own file-writing code through the
``plan_file_sandbox`` fixture::

    from pytest_toolconformance.host.attacks import ATTACKS, attack_params

    @pytest.mark.parametrize("attack", attack_params())
    def test_my_tool_keeps_to_the_plan_file(plan_file_sandbox, attack):
        prepared = plan_file_sandbox.prepare(attack)     # plants the trap; the concrete op and turn
        my_tool_write(prepared.session, prepared.op.get("path"), prepared.op.get("content", ""))
        plan_file_sandbox.assert_outside_untouched()     # nothing outside the root changed

or run the host's own sandbox with ``plan_file_sandbox.run_attack(attack)``, which returns a
:class:`Verdict` (``verdict.ok``, ``verdict.problems``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolconformance.tree import changes, snapshot

GUEST_ROOT = "/workspace"
CONTENT = "# the plan, written by the attack table\n"
SECRET = "secret outside the root\n"
NFC_NAME = unicodedata.normalize("NFC", "caf\u00e9-plan.md")
NFD_NAME = unicodedata.normalize("NFD", NFC_NAME)
LONG_TAIL = "/".join(["d" * 200] * 21) + "/plan.md"  # over 4,096 UTF-8 bytes with any prefix
LONG_COMPONENT = "a" * 300  # over 255 bytes
_CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445"}

Json = dict[str, Any]


@dataclass(frozen=True)
class Attack:
    """One row of the table."""

    id: str
    rule: str
    title: str
    op: Mapping[str, Any]
    expect: str  # "admitted" or "refused"
    setup: tuple[Mapping[str, str], ...] = ()
    scope: str | None = None
    via: str = "plan"  # "plan" or "child"
    plan_file: str | None = None
    requires: tuple[str, ...] = ()  # capabilities, plus "plan-parent" / "plan-grandparent" (below the root)

    @property
    def param_id(self) -> str:
        return f"{self.rule}-{self.id}"

    def as_dict(self) -> Json:
        """The row as plain JSON data."""
        out: Json = {"id": self.id, "rule": self.rule, "title": self.title, "op": dict(self.op),
                     "expect": self.expect, "setup": [dict(s) for s in self.setup], "via": self.via}
        for key in ("scope", "plan_file"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.requires:
            out["requires"] = list(self.requires)
        return out


def _w(path: str, executor: str = "sandbox") -> Json:
    op: Json = {"kind": "write", "path": path, "content": CONTENT}
    if executor != "sandbox":
        op["executor"] = executor
    return op


def _up(path: str, executor: str = "sandbox") -> Json:
    op: Json = {"kind": "upload", "path": path, "content": CONTENT}
    if executor != "sandbox":
        op["executor"] = executor
    return op


def _op(kind: str, path: str | None = None, dest: str | None = None, executor: str = "sandbox") -> Json:
    op: Json = {"kind": kind}
    if path is not None:
        op["path"] = path
    if dest is not None:
        op["dest"] = dest
    if executor != "sandbox":
        op["executor"] = executor
    return op


def _dir(guest: str) -> Json:
    return {"dir": guest}


def _file(guest: str, content: str = "existing\n") -> Json:
    return {"file": guest, "content": content}


def _link(guest: str, to: str) -> Json:
    return {"symlink": guest, "to": to}


SIBLING = "{plan_dir}/notes.md"
PARENT = ("plan-parent",)
GRAND = ("plan-parent", "plan-grandparent")
PAIRED = ("paired-executor",)
CHILD = ("delegation",)

# One row per line reads as a table.
# fmt: off
ATTACKS: tuple[Attack, ...] = (
    # -- PLANFILE-2: the one admitted write or upload, and its create-only parents
    Attack("write-exact", "PLANFILE-2", "a write of exactly the plan path is admitted and creates missing parents", _w("{plan}"), "admitted"),
    Attack("upload-exact", "PLANFILE-2", "an upload of exactly the plan path is admitted", _up("{plan}"), "admitted"),
    Attack("write-exact-parent-exists", "PLANFILE-2", "the plan write goes through an existing parent", _w("{plan}"), "admitted", (_dir("{plan_dir}"),), requires=PARENT),
    Attack("write-exact-grandparent-exists", "PLANFILE-2", "only the missing parents are created", _w("{plan}"), "admitted", (_dir("{plans}"),), requires=GRAND),
    Attack("write-overwrites-plan", "PLANFILE-2", "an existing plan file is overwritten", _w("{plan}"), "admitted", (_file("{plan}", "old plan\n"),)),
    Attack("mkdir-missing-parent", "PLANFILE-2", "a missing parent of the plan file may be created", _op("mkdir", "{plan_dir}"), "admitted", requires=PARENT),
    Attack("nfc-plan-exact", "PLANFILE-2", "a plan path with a composed character is written under its exact spelling", _w("{plan_dir}/" + NFC_NAME), "admitted", plan_file="{plan_dir}/" + NFC_NAME),
    Attack("nfd-plan-exact", "PLANFILE-2", "a decomposed plan path is written under its exact spelling", _w("{plan_dir}/" + NFD_NAME), "admitted", plan_file="{plan_dir}/" + NFD_NAME),
    # -- PLANFILE-2: create-only parents, nothing else
    Attack("mkdir-existing-parent", "PLANFILE-2", "an existing parent is not 'created' again (create-only)", _op("mkdir", "{plan_dir}"), "refused", (_dir("{plan_dir}"),), requires=PARENT),
    Attack("mkdir-non-ancestor", "PLANFILE-2", "a directory that is no ancestor of the plan file", _op("mkdir", "{guest_root}/elsewhere"), "refused"),
    Attack("mkdir-at-plan-path", "PLANFILE-2", "a directory at the plan path itself", _op("mkdir", "{plan}"), "refused"),
    Attack("mkdir-below-plan-dir", "PLANFILE-2", "a directory beside the plan file", _op("mkdir", "{plan_dir}/sub"), "refused"),
    # -- PLANFILE-2: no sibling, no other file
    Attack("sibling", "PLANFILE-2", "a sibling of the plan file", _w(SIBLING), "refused"),
    Attack("sibling-parent-exists", "PLANFILE-2", "a sibling whose parent exists", _w(SIBLING), "refused", (_dir("{plan_dir}"),)),
    Attack("sibling-upload", "PLANFILE-2", "an upload to a sibling", _up(SIBLING), "refused"),
    Attack("suffix", "PLANFILE-2", "the plan path with a suffix", _w("{plan}.bak"), "refused"),
    Attack("prefix-of-name", "PLANFILE-2", "a prefix of the plan path", _w("{plan_prefix}"), "refused"),
    Attack("below-plan", "PLANFILE-2", "a path below the plan file", _w("{plan}/x"), "refused"),
    Attack("plan-dir-itself", "PLANFILE-2", "the plan directory itself, as a file", _w("{plan_dir}"), "refused", (_dir("{plan_dir}"),)),
    Attack("guest-root", "PLANFILE-2", "the guest root, as a file", _w("{guest_root}"), "refused"),
    Attack("other-existing-file", "PLANFILE-2", "another existing file of the workspace", _w("{guest_root}/README.md"), "refused", (_file("{guest_root}/README.md"),)),
    # -- PLANFILE-2: traversal and absolute-path tricks
    Attack("dotdot-back-to-plan", "PLANFILE-2", "'..' that lands back on the plan path", _w("{plan_dir}/../{plan_dir_name}/{plan_name}"), "refused"),
    Attack("dotdot-out-of-root", "PLANFILE-2", "'..' out of the guest root", _w("{guest_root}/../outside/stolen.md"), "refused"),
    Attack("dotdot-alone", "PLANFILE-2", "the guest root's parent", _w("{guest_root}/.."), "refused"),
    Attack("absolute-host-plan", "PLANFILE-2", "the plan file's real host path", _w("{host_plan}"), "refused"),
    Attack("absolute-outside", "PLANFILE-2", "an absolute path outside the root", _w("{outside}/stolen.md"), "refused"),
    Attack("relative", "PLANFILE-2", "the plan path without its leading /workspace", _w("{plan_rel}"), "refused"),
    Attack("root-name-prefix", "PLANFILE-2", "a root whose name only starts like the guest root", _w("{guest_root}2/{plan_rel}"), "refused"),
    # -- PLANFILE-2: other spellings are refused, never normalized onto the plan path
    Attack("doubled-slash-inner", "PLANFILE-2", "a doubled slash inside the plan path", _w("{plan_dir}//{plan_name}"), "refused"),
    Attack("doubled-slash-leading", "PLANFILE-2", "a doubled leading slash", _w("/{plan}"), "refused"),
    Attack("trailing-slash", "PLANFILE-2", "the plan path with a trailing slash", _w("{plan}/"), "refused"),
    Attack("dot-segment", "PLANFILE-2", "a '.' segment in the plan path", _w("{plan_dir}/./{plan_name}"), "refused"),
    Attack("trailing-dot-segment", "PLANFILE-2", "a trailing '/.'", _w("{plan}/."), "refused"),
    Attack("backslash-separator", "PLANFILE-2", "backslashes in place of the last slash", _w("{plan_dir}\\{plan_name}"), "refused"),
    # -- PLANFILE-2: links are never followed
    Attack("symlink-at-plan-to-outside-dangling", "PLANFILE-2", "a dangling link at the plan path pointing out of the root", _w("{plan}"), "refused", (_link("{plan}", "{outside}/stolen.md"),)),
    Attack("symlink-at-plan-to-outside-file", "PLANFILE-2", "a link at the plan path to a file outside the root", _w("{plan}"), "refused", (_link("{plan}", "{outside}/secret.txt"),)),
    Attack("symlink-at-plan-upload", "PLANFILE-2", "an upload through a link at the plan path", _up("{plan}"), "refused", (_link("{plan}", "{outside}/secret.txt"),)),
    Attack("symlink-at-plan-to-sibling", "PLANFILE-2", "a link at the plan path to a sibling inside the root", _w("{plan}"), "refused", (_file(SIBLING), _link("{plan}", "notes.md"))),
    Attack("symlink-parent-to-outside", "PLANFILE-2", "the plan file's parent is a link out of the root", _w("{plan}"), "refused", (_link("{plan_dir}", "{outside}"),), requires=PARENT),
    Attack("symlink-parent-upload", "PLANFILE-2", "an upload through a linked parent", _up("{plan}"), "refused", (_link("{plan_dir}", "{outside}"),), requires=PARENT),
    Attack("symlink-grandparent-to-outside", "PLANFILE-2", "the plan file's grandparent is a link out of the root", _w("{plan}"), "refused", (_link("{plans}", "{outside}"),), requires=GRAND),
    Attack("mkdir-through-symlink", "PLANFILE-2", "creating the parent through a linked grandparent", _op("mkdir", "{plan_dir}"), "refused", (_link("{plans}", "{outside}"),), requires=GRAND),
    Attack("hardlink-at-plan", "PLANFILE-2", "the plan path is a hard link to a file outside the root", _w("{plan}"), "refused", ({"hardlink": "{plan}", "to": "{outside}/secret.txt"},)),
    Attack("parent-is-a-file", "PLANFILE-2", "the plan file's parent exists as a regular file", _w("{plan}"), "refused", (_file("{plan_dir}", "not a directory\n"),), requires=PARENT),
    Attack("plan-is-a-directory", "PLANFILE-2", "the plan path exists as a directory", _w("{plan}"), "refused", (_dir("{plan}"),)),
    Attack("plan-is-a-fifo", "PLANFILE-2", "the plan path is a named pipe (a host that opens it to write blocks or feeds a reader)", _w("{plan}"), "refused", ({"fifo": "{plan}"},)),
    Attack("upload-onto-fifo", "PLANFILE-2", "an upload onto a named pipe at the plan path", _up("{plan}"), "refused", ({"fifo": "{plan}"},)),
    Attack("plan-is-a-socket", "PLANFILE-2", "the plan path is a Unix socket", _w("{plan}"), "refused", ({"socket": "{plan}"},)),
    Attack("parent-is-a-fifo", "PLANFILE-2", "the plan file's parent is a named pipe", _w("{plan}"), "refused", ({"fifo": "{plan_dir}"},), requires=PARENT),
    Attack("parent-is-a-socket", "PLANFILE-2", "the plan file's parent is a Unix socket", _w("{plan}"), "refused", ({"socket": "{plan_dir}"},), requires=PARENT),
    Attack("trailing-slash-dot-slash", "PLANFILE-2", "the plan path with a trailing '/./'", _w("{plan}/./"), "refused"),
    # -- PLANFILE-2: look-alikes are other paths (exact comparison by code point)
    Attack("cyrillic-lookalike", "PLANFILE-2", "a Cyrillic look-alike letter in the plan path", _w("{plan_cyrillic}"), "refused"),
    Attack("fullwidth-solidus", "PLANFILE-2", "U+FF0F in place of the last slash", _w("{plan_fullwidth}"), "refused"),
    Attack("zero-width-space", "PLANFILE-2", "a zero-width space in the plan name", _w("{plan_zero_width}"), "refused"),
    Attack("case-variant", "PLANFILE-2", "the plan name in upper case", _w("{plan_upper}"), "refused"),
    Attack("nfd-spelling-of-nfc-plan", "PLANFILE-2", "the NFD spelling of an NFC plan path", _w("{plan_dir}/" + NFD_NAME), "refused", plan_file="{plan_dir}/" + NFC_NAME),
    Attack("nfc-spelling-of-nfd-plan", "PLANFILE-2", "the NFC spelling of an NFD plan path", _w("{plan_dir}/" + NFC_NAME), "refused", plan_file="{plan_dir}/" + NFD_NAME),
    # -- PLANFILE-2: NUL, control characters, lengths
    Attack("nul-byte", "PLANFILE-2", "a NUL byte after the plan path", _w("{plan}\u0000.txt"), "refused"),
    Attack("nul-only-suffix", "PLANFILE-2", "the plan path with a trailing NUL", _w("{plan}\u0000"), "refused"),
    Attack("newline", "PLANFILE-2", "a newline in the plan path", _w("{plan}\n"), "refused"),
    Attack("escape-character", "PLANFILE-2", "an ESC control character in the name", _w("{plan_dir}/\u001b{plan_name}"), "refused"),
    Attack("c1-control", "PLANFILE-2", "a C1 control character in the name", _w("{plan_dir}/{plan_name}\u0085"), "refused"),
    Attack("very-long-path", "PLANFILE-2", "a path over 4,096 bytes below the plan directory", _w("{plan_dir}/" + LONG_TAIL), "refused"),
    Attack("very-long-component", "PLANFILE-2", "a component over 255 bytes", _w("{plan_dir}/" + LONG_COMPONENT), "refused"),
    # -- PLANFILE-3: no remove, rename, copy, lifecycle or Desktop, the plan file included
    Attack("remove-plan", "PLANFILE-3", "removing the plan file", _op("remove", "{plan}"), "refused", (_file("{plan}"),)),
    Attack("remove-sibling", "PLANFILE-3", "removing a sibling", _op("remove", SIBLING), "refused", (_file(SIBLING),)),
    Attack("remove-plan-dir", "PLANFILE-3", "removing the (empty) plan directory", _op("remove", "{plan_dir}"), "refused", (_dir("{plan_dir}"),), requires=PARENT),
    Attack("rename-plan-away", "PLANFILE-3", "renaming the plan file", _op("rename", "{plan}", SIBLING), "refused", (_file("{plan}"),)),
    Attack("rename-onto-plan", "PLANFILE-3", "renaming a sibling onto the plan path", _op("rename", SIBLING, "{plan}"), "refused", (_file(SIBLING),)),
    Attack("copy-plan-away", "PLANFILE-3", "copying the plan file", _op("copy", "{plan}", SIBLING), "refused", (_file("{plan}"),)),
    Attack("copy-onto-plan", "PLANFILE-3", "copying a file onto the plan path", _op("copy", SIBLING, "{plan}"), "refused", (_file(SIBLING),)),
    Attack("lifecycle", "PLANFILE-3", "a lifecycle operation", _op("lifecycle"), "refused"),
    Attack("lifecycle-naming-plan", "PLANFILE-3", "a lifecycle operation naming the plan file", _op("lifecycle", "{plan}"), "refused"),
    Attack("desktop", "PLANFILE-3", "a Desktop operation", _op("desktop"), "refused"),
    Attack("desktop-naming-plan", "PLANFILE-3", "a Desktop operation naming the plan file", _op("desktop", "{plan}"), "refused"),
    # -- PLANFILE-4: the paired-computer executor writes exactly the plan file, narrowed to its parent
    Attack("paired-exact-write", "PLANFILE-4", "the paired executor's exact write is admitted, scoped to the parent", _w("{plan}", "paired"), "admitted", (_dir("{plan_dir}"),), scope="{plan_dir}", requires=PAIRED),
    Attack("paired-overwrite", "PLANFILE-4", "the paired executor overwrites the plan file, scoped to the parent", _w("{plan}", "paired"), "admitted", (_file("{plan}", "old plan\n"),), scope="{plan_dir}", requires=PAIRED),
    Attack("paired-upload", "PLANFILE-4", "the paired executor admits no upload", _up("{plan}", "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    Attack("paired-mkdir", "PLANFILE-4", "the paired executor makes no directory", _op("mkdir", "{plan_dir}", executor="paired"), "refused", requires=PAIRED + PARENT),
    Attack("paired-missing-parent", "PLANFILE-4", "narrowed to the parent, the paired executor does not create it", _w("{plan}", "paired"), "refused", requires=PAIRED + PARENT),
    Attack("paired-sibling", "PLANFILE-4", "the paired executor writes no sibling", _w(SIBLING, "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    Attack("paired-other-file", "PLANFILE-4", "the paired executor writes no other file", _w("{guest_root}/README.md", "paired"), "refused", (_file("{guest_root}/README.md"),), requires=PAIRED),
    Attack("paired-fifo-at-plan", "PLANFILE-4", "the paired executor writes no named pipe at the plan path", _w("{plan}", "paired"), "refused", ({"fifo": "{plan}"},), requires=PAIRED),
    Attack("paired-symlink-at-plan", "PLANFILE-4", "the paired executor follows no link at the plan path", _w("{plan}", "paired"), "refused", (_link("{plan}", "{outside}/secret.txt"),), requires=PAIRED),
    Attack("paired-symlink-parent", "PLANFILE-4", "the paired executor follows no linked parent", _w("{plan}", "paired"), "refused", (_link("{plan_dir}", "{outside}"),), requires=PAIRED + PARENT),
    Attack("paired-doubled-slash", "PLANFILE-4", "the paired executor takes no other spelling", _w("{plan_dir}//{plan_name}", "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    # -- PLANFILE-4: on the paired executor too, look-alikes are other paths (a case- or normalization-
    # insensitive disk on the paired computer must not widen "that same exact path")
    Attack("paired-case-variant", "PLANFILE-4", "the paired executor writes no upper-case spelling of the plan name", _w("{plan_upper}", "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    Attack("paired-cyrillic-lookalike", "PLANFILE-4", "the paired executor writes no Cyrillic look-alike of the plan path", _w("{plan_cyrillic}", "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    Attack("paired-fullwidth-solidus", "PLANFILE-4", "the paired executor takes no U+FF0F in place of the last slash", _w("{plan_fullwidth}", "paired"), "refused", (_dir("{plan_dir}"),), requires=PAIRED),
    Attack("paired-nfd-spelling-of-nfc-plan", "PLANFILE-4", "the paired executor writes no NFD spelling of an NFC plan path", _w("{plan_dir}/" + NFD_NAME, "paired"), "refused", (_dir("{plan_dir}"),), plan_file="{plan_dir}/" + NFC_NAME, requires=PAIRED),
    Attack("paired-nfc-spelling-of-nfd-plan", "PLANFILE-4", "the paired executor writes no NFC spelling of an NFD plan path", _w("{plan_dir}/" + NFC_NAME, "paired"), "refused", (_dir("{plan_dir}"),), plan_file="{plan_dir}/" + NFD_NAME, requires=PAIRED),
    Attack("paired-remove", "PLANFILE-4", "the paired executor removes nothing", _op("remove", "{plan}", executor="paired"), "refused", (_file("{plan}"),), requires=PAIRED),
    Attack("paired-rename", "PLANFILE-4", "the paired executor renames nothing", _op("rename", "{plan}", SIBLING, executor="paired"), "refused", (_file("{plan}"),), requires=PAIRED),
    # -- PLANFILE-5: a plan path handed to a child grants the child nothing
    Attack("child-write-plan", "PLANFILE-5", "a read-only child asked to inherit planFile writes the plan path", _w("{plan}"), "refused", via="child", requires=CHILD),
    Attack("child-upload-plan", "PLANFILE-5", "a child uploads to the plan path", _up("{plan}"), "refused", via="child", requires=CHILD),
    Attack("child-mkdir-plan-parent", "PLANFILE-5", "a child creates the plan file's parent", _op("mkdir", "{plan_dir}"), "refused", via="child", requires=CHILD + PARENT),
    Attack("child-overwrite-plan", "PLANFILE-5", "a child overwrites an existing plan file", _w("{plan}"), "refused", (_file("{plan}", "old plan\n"),), via="child", requires=CHILD),
    Attack("child-paired-write", "PLANFILE-5", "a child's paired executor writes the plan path", _w("{plan}", "paired"), "refused", (_dir("{plan_dir}"),), via="child", requires=CHILD + PAIRED),
)
# fmt: on


def attack_params(rules: Iterable[str] | None = None) -> list[Any]:
    """The rows (only those of ``rules``, when given) as ``pytest.param``s, each with its id and a
    ``toolconformance`` marker for its own rule, so ``-k PLANFILE-3`` selects just those rows."""
    import pytest

    wanted = set(rules) if rules is not None else None
    return [pytest.param(a, id=a.param_id, marks=[pytest.mark.toolconformance(a.rule)])
            for a in ATTACKS if wanted is None or a.rule in wanted]


def as_json() -> str:
    """The whole table as JSON (for a host written in another language, or for a report)."""
    return json.dumps([a.as_dict() for a in ATTACKS], ensure_ascii=False, indent=1)


# ---------------------------------------------------------------------------------- templates


def _lookalike(name: str) -> str:
    for i, ch in enumerate(name):
        if ch in _CYRILLIC:
            return name[:i] + _CYRILLIC[ch] + name[i + 1 :]
    return "\u0430" + name  # no letter with a look-alike: a prefix is still a different name


def variables(plan: str, root: Path, outside: Path) -> dict[str, str]:
    """The template variables for one plan path, a host root and the outside directory."""
    plan_dir, _, plan_name = plan.rpartition("/")
    plans = plan_dir.rpartition("/")[0]
    stem, dot, ext = plan_name.rpartition(".")
    zero_width = f"{stem}\u200b{dot}{ext}" if dot else plan_name + "\u200b"
    return {
        "plan": plan,
        "plan_dir": plan_dir,
        "plan_dir_name": plan_dir.rpartition("/")[2],
        "plans": plans,
        "plan_name": plan_name,
        "plan_rel": plan.removeprefix(GUEST_ROOT + "/"),
        "plan_prefix": plan[:-1],
        "guest_root": GUEST_ROOT,
        "outside": str(outside),
        "host_plan": str(host_path(root, plan)),
        "plan_cyrillic": f"{plan_dir}/{_lookalike(plan_name)}",
        "plan_fullwidth": f"{plan_dir}\uff0f{plan_name}",
        "plan_zero_width": f"{plan_dir}/{zero_width}",
        "plan_upper": f"{plan_dir}/{plan_name.upper()}",
    }


def expand(value: Any, names: Mapping[str, str]) -> Any:
    """Fill ``{name}`` templates in ``value`` (strings, lists and dicts) from ``names``."""
    if isinstance(value, str):
        out = value
        for key in sorted(names, key=len, reverse=True):
            out = out.replace("{" + key + "}", names[key])
        return out
    if isinstance(value, Mapping):
        return {k: expand(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [expand(v, names) for v in value]
    return value


def host_path(root: Path, guest: str) -> Path:
    """The real path behind a canonical guest path under ``/workspace``."""
    if guest == GUEST_ROOT:
        return root
    return root / guest.removeprefix(GUEST_ROOT + "/")


def layout_problem(attack: Attack, plan: str) -> str | None:
    """Why ``attack`` cannot be run for this plan path's layout, or None."""
    depth = len(plan.removeprefix(GUEST_ROOT + "/").split("/"))
    if "plan-parent" in attack.requires and depth < 2:
        return f"the plan path {plan!r} has no parent directory below {GUEST_ROOT}"
    if "plan-grandparent" in attack.requires and depth < 3:
        return f"the plan path {plan!r} has no grandparent directory below {GUEST_ROOT}"
    return None


def plant(setup: list[Mapping[str, str]], root: Path) -> None:
    """Apply expanded setup entries to the real directory."""
    for entry in setup:
        if "dir" in entry:
            host_path(root, entry["dir"]).mkdir(parents=True, exist_ok=True)
            continue
        key = next(k for k in ("file", "symlink", "hardlink", "fifo", "socket") if k in entry)
        at = host_path(root, entry[key])
        at.parent.mkdir(parents=True, exist_ok=True)
        if key == "file":
            at.write_text(entry.get("content", ""), "utf-8")
        elif key == "symlink":
            os.symlink(entry["to"], at)
        elif key == "hardlink":
            os.link(entry["to"], at)
        elif key == "fifo":
            os.mkfifo(at)
        else:
            _plant_socket(at)


def _plant_socket(at: Path) -> None:
    """A Unix socket at ``at``. A socket path is capped near 108 bytes, so it is bound in a short
    temporary directory and renamed into place."""
    short = Path(tempfile.mkdtemp(prefix="tc-"))
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(short / "s"))
        os.rename(short / "s", at)
    finally:
        shutil.rmtree(short, ignore_errors=True)


# ---------------------------------------------------------------------------------- verdicts


@dataclass
class Verdict:
    """What :func:`verify` found: ``problems`` is empty when the row held."""

    attack: Attack
    op: Json
    answer: Json
    problems: list[str] = field(default_factory=list)
    scope: str | None = None  # the scope an admitted paired-executor row must report

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(
    attack: Attack, op: Json, answer: Json, *, root: Path, outside: Path,
    root_before: Mapping[str, Any], outside_before: Mapping[str, Any], names: Mapping[str, str],
) -> Verdict:
    """Judge one performed row from the host's answer and the real directories."""
    verdict = Verdict(attack, op, answer, scope=expand(attack.scope, names) if attack.scope else None)
    moved_outside = changes(outside_before, snapshot(outside))
    if moved_outside:
        verdict.problems.append(f"something outside the root changed: {moved_outside}")
    admitted = answer.get("admitted") is True and "error" not in answer
    if attack.expect == "refused":
        if admitted:
            verdict.problems.append("the operation was admitted")
        moved = changes(root_before, snapshot(root))
        if moved:
            verdict.problems.append(f"a refused operation changed the root: {moved}")
        return verdict
    if not admitted:
        verdict.problems.append("the operation was refused")
        return verdict
    kind, path = op.get("kind"), op.get("path")
    if kind in ("write", "upload") and isinstance(path, str):
        target = host_path(root, path)
        if target.is_symlink() or not target.is_file():
            verdict.problems.append(f"admitted, but {path!r} is not a regular file in the root afterwards")
        elif target.read_text("utf-8", errors="replace") != op.get("content", ""):
            verdict.problems.append(f"admitted, but {path!r} does not hold the written content")
    elif kind == "mkdir" and isinstance(path, str) and not host_path(root, path).is_dir():
        verdict.problems.append(f"admitted, but {path!r} is not a directory in the root afterwards")
    if verdict.scope is not None and answer.get("scope") != verdict.scope:
        verdict.problems.append(
            f"admitted with scope {answer.get('scope')!r}, not narrowed to the plan file's parent {verdict.scope!r}"
        )
    return verdict


__all__ = [
    "ATTACKS",
    "Attack",
    "CONTENT",
    "GUEST_ROOT",
    "Verdict",
    "as_json",
    "attack_params",
    "changes",
    "expand",
    "host_path",
    "layout_problem",
    "plant",
    "snapshot",
    "variables",
    "verify",
]
