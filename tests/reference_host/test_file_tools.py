"""The core file tools and command execution: ACCESS-5/6/7/8, PLANFILE-2/6, ERR-2.

FileTools is what the host's Read/Write/Edit/ListDir/Glob/Grep/FileInfo tools do; run_command is
what its Bash tool does. Access is handed in as a provider so that every test can change it
between (or during) operations, the way a live descriptor changes.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_host.bash import run_command
from reference_host.sandbox import FileTools, Sandbox, SandboxAccess

PLAN = "/workspace/.plans/p1/plan.md"
BUILD = SandboxAccess(read_only=False, plan_file=None)
PLAN_TURN = SandboxAccess(read_only=True, plan_file=PLAN)
READ_ONLY = SandboxAccess(read_only=True, plan_file=None)


class LiveAccess:
    """A stand-in for currentAccess(): mutable, and it counts how often it is read."""

    def __init__(self, access: SandboxAccess = BUILD) -> None:
        self.access = access
        self.reads = 0

    def __call__(self) -> SandboxAccess:
        self.reads += 1
        return self.access


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hello')\nvalue = 1\n")
    (root / "notes.md").write_text("alpha\nbeta\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret password\n")
    return root


@pytest.fixture
def tools(root: Path) -> Iterator[FileTools]:
    with Sandbox(root) as sandbox:
        yield FileTools(sandbox)


def outside(root: Path) -> Path:
    return root.parent / "outside"


# ----------------------------------------------------------- read-before-write (ACCESS-7)


def test_access7_write_over_unread_existing_file_refused(tools: FileTools, root: Path) -> None:
    result = tools.write(LiveAccess(), "/workspace/notes.md", "clobbered", "s1")
    assert not result["ok"] and result["rule"] == "ACCESS-7"
    assert "[ACCESS-7]" in result["text"] and "/workspace/notes.md" in result["text"]
    assert (root / "notes.md").read_text() == "alpha\nbeta\n"


def test_access7_write_after_read_admitted(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    read = tools.read(live, "/workspace/notes.md", "s1")
    assert read["ok"] and read["text"] == "alpha\nbeta\n" and len(read["version"]) == 64
    result = tools.write(live, "/workspace/notes.md", "rewritten", "s1")
    assert result["ok"], result["text"]
    assert (root / "notes.md").read_text() == "rewritten"


def test_access7_write_over_changed_since_read_refused(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    tools.read(live, "/workspace/notes.md", "s1")
    (root / "notes.md").write_text("changed by someone else\n")
    result = tools.write(live, "/workspace/notes.md", "mine", "s1")
    assert not result["ok"] and result["rule"] == "ACCESS-7" and "changed since it was read" in result["text"]
    assert (root / "notes.md").read_text() == "changed by someone else\n"


def test_access7_same_bytes_rewritten_still_match(tools: FileTools, root: Path) -> None:
    # The guard is on bytes, not on mtime: rewriting identical content keeps the version.
    live = LiveAccess()
    tools.read(live, "/workspace/notes.md", "s1")
    (root / "notes.md").write_text("alpha\nbeta\n")
    assert tools.write(live, "/workspace/notes.md", "ok", "s1")["ok"]


def test_access7_read_state_is_per_session(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    tools.read(live, "/workspace/notes.md", "s1")
    result = tools.write(live, "/workspace/notes.md", "other session", "s2")
    assert not result["ok"] and result["rule"] == "ACCESS-7"


def test_access7_new_file_needs_no_read(tools: FileTools, root: Path) -> None:
    result = tools.write(LiveAccess(), "/workspace/src/new.py", "x = 1\n", "s1")
    assert result["ok"], result["text"]
    assert (root / "src" / "new.py").read_text() == "x = 1\n"


def test_access7_own_write_counts_as_read(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    assert tools.write(live, "/workspace/new.md", "one", "s1")["ok"]
    assert tools.write(live, "/workspace/new.md", "two", "s1")["ok"]
    assert tools.version_read("s1", "/workspace/new.md") == tools.read(live, "/workspace/new.md", "s1")["version"]


def test_access7_edit_requires_read_and_current_version(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    refused = tools.edit(live, "/workspace/src/main.py", "value = 1", "value = 2", "s1")
    assert not refused["ok"] and refused["rule"] == "ACCESS-7" and refused["text"].startswith("[ACCESS-7] edit ")
    tools.read(live, "/workspace/src/main.py", "s1")
    done = tools.edit(live, "/workspace/src/main.py", "value = 1", "value = 2", "s1")
    assert done["ok"], done["text"]
    assert (root / "src" / "main.py").read_text() == "print('hello')\nvalue = 2\n"
    (root / "src" / "main.py").write_text("print('hello')\nvalue = 3\n")
    stale = tools.edit(live, "/workspace/src/main.py", "value = 3", "value = 4", "s1")
    assert not stale["ok"] and stale["rule"] == "ACCESS-7"
    assert (root / "src" / "main.py").read_text() == "print('hello')\nvalue = 3\n"


def test_access7_edit_needs_a_unique_match_and_an_existing_file(tools: FileTools, root: Path) -> None:
    live = LiveAccess()
    (root / "dup.txt").write_text("x\nx\n")
    tools.read(live, "/workspace/dup.txt", "s1")
    assert "occurs 2 times" in tools.edit(live, "/workspace/dup.txt", "x", "y", "s1")["text"]
    missing = tools.edit(live, "/workspace/nope.txt", "x", "y", "s1")
    assert not missing["ok"] and "does not exist" in missing["text"]
    assert not (root / "nope.txt").exists()


# --------------------------------------------------- the mutation queue (ACCESS-6)


def test_access6_queued_write_rechecks_access_when_it_runs(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    ticket = tools.enqueue_write(live, "/workspace/src/new.py", "x = 1\n", "s1")
    assert live.reads == 0, "access must not be read when queueing"
    live.access = READ_ONLY  # revoked between queueing and running
    ran = tools.queue.run_next()
    assert ran is ticket and ticket.done
    assert not ticket.result["ok"] and ticket.result["rule"] == "PLANFILE-2"
    assert not (root / "src" / "new.py").exists()


def test_access6_queued_edit_revoked_leaves_file_unchanged(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    tools.read(live, "/workspace/notes.md", "s1")
    ticket = tools.enqueue_edit(live, "/workspace/notes.md", "alpha", "gamma", "s1")
    live.access = SandboxAccess(False, None, roots=("/workspace/src",))  # project scope narrowed
    tools.queue.drain()
    assert not ticket.result["ok"] and ticket.result["rule"] == "ACCESS-8"
    assert (root / "notes.md").read_text() == "alpha\nbeta\n"


def test_access6_plan_file_withdrawn_before_run(tools: FileTools, root: Path) -> None:
    live = LiveAccess(PLAN_TURN)
    ticket = tools.enqueue_write(live, PLAN, "# plan\n", "s1")
    live.access = SandboxAccess(read_only=True, plan_file=None)
    tools.queue.drain()
    assert not ticket.result["ok"] and ticket.result["rule"] == "PLANFILE-2"
    assert not (root / ".plans").exists()


def test_access6_granted_before_run_is_admitted(tools: FileTools, root: Path) -> None:
    # The other direction: what counts is the access at run time, not at queue time.
    live = LiveAccess(READ_ONLY)
    ticket = tools.enqueue_write(live, "/workspace/late.txt", "ok", "s1")
    live.access = BUILD
    tools.queue.drain()
    assert ticket.result["ok"] and (root / "late.txt").read_text() == "ok"


def test_access6_anchored_path_swapped_for_link_before_run(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    ticket = tools.enqueue_write(live, "/workspace/gen/out.txt", "data", "s1")
    os.symlink(outside(root), root / "gen")  # planted after queueing
    tools.queue.drain()
    assert not ticket.result["ok"] and ticket.result["rule"] == "ACCESS-8"
    assert sorted(os.listdir(outside(root))) == ["secret.txt"]


def test_access6_queue_is_fifo(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    first = tools.enqueue_write(live, "/workspace/order.txt", "first", "s1")
    second = tools.enqueue_write(live, "/workspace/order.txt", "second", "s1")
    assert len(tools.queue) == 2
    assert tools.queue.drain() == [first, second]
    assert first.result["ok"] and second.result["ok"], (first.result, second.result)
    assert (root / "order.txt").read_text() == "second"


# --------------------------------------------------- access read per operation (ACCESS-5)


def test_access5_access_is_read_once_per_operation(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    tools.read(live, "/workspace/notes.md", "s1")
    tools.list_dir(live, "/workspace")
    tools.glob(live, "/workspace", "*.md")
    tools.grep(live, "/workspace", "alpha")
    tools.file_info(live, "/workspace/notes.md")
    tools.write(live, "/workspace/n.txt", "n", "s1")
    assert live.reads == 6


def test_access5_revocation_between_operations_applies_at_once(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    assert tools.write(live, "/workspace/a.txt", "a", "s1")["ok"]
    live.access = READ_ONLY
    refused = tools.write(live, "/workspace/a.txt", "b", "s1")
    assert not refused["ok"] and refused["rule"] == "PLANFILE-2"
    live.access = SandboxAccess(True, None, roots=("/workspace/src",))
    assert tools.read(live, "/workspace/notes.md", "s1")["rule"] == "ACCESS-8"
    assert (root / "a.txt").read_text() == "a"


def test_access5_read_after_revocation_is_refused(tools: FileTools, root: Path) -> None:
    live = LiveAccess(BUILD)
    assert tools.read(live, "/workspace/notes.md", "s1")["ok"]
    assert tools.list_dir(live, "/workspace")["ok"]
    live.access = SandboxAccess(True, None, roots=("/workspace/src",))  # project scope narrowed
    for result in (
        tools.read(live, "/workspace/notes.md", "s1"),
        tools.list_dir(live, "/workspace"),
        tools.glob(live, "/workspace", "*"),
        tools.grep(live, "/workspace", "alpha"),
        tools.file_info(live, "/workspace/notes.md"),
    ):
        assert not result["ok"] and result["rule"] == "ACCESS-8", result


def test_planfile2_write_tool_on_a_plan_turn(tools: FileTools, root: Path) -> None:
    live = LiveAccess(PLAN_TURN)
    assert tools.write(live, PLAN, "# plan\n", "s1")["ok"]
    sibling = tools.write(live, "/workspace/.plans/p1/other.md", "x", "s1")
    assert not sibling["ok"] and sibling["rule"] == "PLANFILE-2"
    assert (root / ".plans" / "p1" / "plan.md").read_text() == "# plan\n"
    assert sorted(os.listdir(root / ".plans" / "p1")) == ["plan.md"]


# ---------------------------------------- the read-only tools are confined (ACCESS-8)


@pytest.fixture
def linked(root: Path) -> Path:
    os.symlink(outside(root), root / "out")
    os.symlink(outside(root) / "secret.txt", root / "src" / "secret_link.txt")
    return root


def test_access8_list_dir_reports_links_without_following(tools: FileTools, linked: Path) -> None:
    listing = tools.list_dir(LiveAccess(), "/workspace")
    assert listing["ok"]
    kinds = {e["name"]: e["type"] for e in listing["entries"]}
    assert kinds == {"notes.md": "file", "out": "link", "src": "dir"}
    assert "link, not followed" in listing["text"]
    into = tools.list_dir(LiveAccess(), "/workspace/out")
    assert not into["ok"] and into["rule"] == "ACCESS-8" and "/workspace/out" in into["text"]


@pytest.mark.parametrize(
    "path", ["/workspace/..", "/", "/etc", "/workspace/../outside", "workspace", "/workspace//src"]
)
def test_access8_list_dir_refuses_paths_outside_the_root(tools: FileTools, path: str) -> None:
    result = tools.list_dir(LiveAccess(), path)
    assert not result["ok"] and result["rule"] == "ACCESS-8" and repr(path) in result["text"]


def test_access8_glob_does_not_traverse_links(tools: FileTools, linked: Path) -> None:
    result = tools.glob(LiveAccess(), "/workspace", "**/*.txt")
    assert result["ok"]
    assert result["matches"] == ["/workspace/src/secret_link.txt  (link, not followed)"]
    everything = tools.glob(LiveAccess(), "/workspace", "**")
    assert not any("secret.txt" in m and "link" not in m for m in everything["matches"])
    assert "/workspace/src/main.py" in everything["matches"]


def test_access8_glob_pattern_cannot_escape(tools: FileTools, linked: Path) -> None:
    assert not tools.glob(LiveAccess(), "/workspace", "/etc/*")["ok"]
    assert tools.glob(LiveAccess(), "/workspace", "../outside/*")["matches"] == []


def test_access8_grep_skips_links_and_stays_inside(tools: FileTools, linked: Path) -> None:
    result = tools.grep(LiveAccess(), "/workspace", "secret|hello")
    assert result["ok"]
    assert result["matches"] == ["/workspace/src/main.py:1:print('hello')"]
    assert "symbolic links skipped" in result["text"]
    direct = tools.grep(LiveAccess(), "/workspace/src/secret_link.txt", "secret")
    assert not direct["ok"] and direct["rule"] == "ACCESS-8"
    bad = tools.grep(LiveAccess(), "/workspace", "(unclosed")
    assert not bad["ok"] and "not a valid regular expression" in bad["text"]


def test_access8_file_info_describes_a_link_without_following(tools: FileTools, linked: Path) -> None:
    info = tools.file_info(LiveAccess(), "/workspace/src/secret_link.txt")
    assert info["ok"] and info["info"]["type"] == "link"
    assert info["info"]["target"] == str(outside(linked) / "secret.txt")
    assert "not followed" in info["text"]
    plain = tools.file_info(LiveAccess(), "/workspace/notes.md")
    assert plain["info"]["type"] == "file" and plain["info"]["size"] == len("alpha\nbeta\n")


def test_access8_read_through_link_refused(tools: FileTools, linked: Path) -> None:
    for path in ("/workspace/src/secret_link.txt", "/workspace/out/secret.txt"):
        result = tools.read(LiveAccess(), path, "s1")
        assert not result["ok"] and result["rule"] == "ACCESS-8" and "secret password" not in result["text"]


def test_err2_bad_arguments_are_text_results(tools: FileTools) -> None:
    live = LiveAccess()
    for result in (
        tools.read(live, 42, "s1"),  # type: ignore[arg-type]
        tools.read(live, "/workspace/missing.txt", "s1"),
        tools.write(live, "relative.txt", "x", "s1"),
        tools.write(live, "/workspace/x", b"bytes", "s1"),  # type: ignore[arg-type]
        tools.edit(live, "/workspace/notes.md", "", "x", "s1"),
        tools.glob(live, "/workspace", ""),
    ):
        assert result["ok"] is False and isinstance(result["text"], str) and result["text"]


# ------------------------------------------------ command execution (PLANFILE-6)

READ_ONLY_ADMITTED = [
    "ls -la",
    "cat notes.md",
    "head -n 1 notes.md",
    "wc -l notes.md",
    "grep -n alpha notes.md",
    "grep -E 'alpha|beta' notes.md",
    "find . -name '*.md'",
    "pwd",
    "echo 'a > b; c | d'",
    "stat notes.md",
    "sort notes.md",
    "uniq notes.md",
    "diff notes.md notes.md",
    "true",
]

READ_ONLY_REFUSED = [
    ("redirect", "echo hi > new.txt"),
    ("append", "echo hi >> notes.md"),
    ("input-redirect", "cat < notes.md"),
    ("pipe", "cat notes.md | wc -l"),
    ("sequence", "ls; rm notes.md"),
    ("and", "true && rm notes.md"),
    ("background", "sleep 5 &"),
    ("substitution", "echo $(rm notes.md)"),
    ("substitution-in-double-quotes", 'echo "$(rm notes.md)"'),
    ("backticks", "echo `rm notes.md`"),
    ("newline", "ls\nrm notes.md"),
    ("rm", "rm notes.md"),
    ("touch", "touch new.txt"),
    ("absolute-program", "/bin/rm notes.md"),
    ("relative-program", "./ls"),
    ("bash", "bash -c 'rm notes.md'"),
    ("python", "python3 -c 'print(1)'"),
    ("find-delete", "find . -name notes.md -delete"),
    ("find-exec", "find . -exec rm {} +"),
    ("find-fprint", "find . -fprint new.txt"),
    ("sort-output", "sort -o new.txt notes.md"),
    ("sort-output-cluster", "sort -ro new.txt notes.md"),
    ("sort-compress-program", "sort --compress-program=rm notes.md"),
    ("uniq-output-operand", "uniq notes.md new.txt"),
    ("file-compile", "file -C -m notes.md"),
    ("git-commit", "git commit -m x"),
    ("git-global-option", "git -c core.pager=rm log"),
    ("git-diff-output", "git diff --output=new.txt"),
    ("unbalanced-quote", "echo 'unterminated"),
    ("empty", "   "),
]


@pytest.mark.parametrize("command", READ_ONLY_ADMITTED, ids=lambda c: "PLANFILE-6-admits-" + c.split()[0])
def test_planfile6_read_only_allowlist_runs(root: Path, command: str) -> None:
    before = sorted(p.name for p in root.iterdir())
    result = run_command(command, cwd=root, read_only=True, root=root)
    assert result["ok"], result["text"]
    assert sorted(p.name for p in root.iterdir()) == before


def test_planfile6_read_only_output_is_real(root: Path) -> None:
    result = run_command("grep -E 'alpha|beta' notes.md", cwd=root, read_only=True)
    assert result["stdout"] == "alpha\nbeta\n"
    quoted = run_command("echo 'a > b; c | d'", cwd=root, read_only=True)
    assert quoted["stdout"] == "a > b; c | d\n"


@pytest.mark.parametrize(
    "command", [c for _, c in READ_ONLY_REFUSED], ids=["PLANFILE-6-refuses-" + n for n, _ in READ_ONLY_REFUSED]
)
def test_planfile6_read_only_refusals(root: Path, command: str) -> None:
    before = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    result = run_command(command, cwd=root, read_only=True, root=root)
    assert result["ok"] is False and result["exit_code"] is None
    assert result["text"].startswith("[PLANFILE-6] command refused:"), result["text"]
    assert {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()} == before


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_planfile6_git_read_only_subcommands_run_and_change_nothing(root: Path) -> None:
    who = "-c user.email=kit@example.invalid -c user.name=kit"
    setup = run_command(f"git init -q && git add -A && git {who} commit -qm init", cwd=root, read_only=False)
    assert setup["ok"], setup["text"]
    # A repository-configured fsmonitor would run on status; the read-only boundary switches it off.
    hook = root / "hook.sh"
    hook.write_text("#!/bin/sh\ntouch pwned\n")
    hook.chmod(0o755)
    assert run_command(f"git config core.fsmonitor {hook}", cwd=root, read_only=False)["ok"]
    (root / "notes.md").write_text("alpha\nBETA\n")
    index_before = (root / ".git" / "index").read_bytes()
    status = run_command("git status --short", cwd=root, read_only=True)
    assert status["ok"] and "M notes.md" in status["stdout"], status["text"]
    assert "+BETA" in run_command("git diff", cwd=root, read_only=True)["stdout"]
    assert "init" in run_command("git log --oneline", cwd=root, read_only=True)["stdout"]
    assert run_command("git show --stat HEAD", cwd=root, read_only=True)["ok"]
    assert not (root / "pwned").exists(), "a repository-configured hook ran on a read-only turn"
    assert (root / ".git" / "index").read_bytes() == index_before, "git status rewrote the index"


def test_planfile6_build_turn_uses_a_shell(root: Path) -> None:
    result = run_command("echo hi > made.txt && cat made.txt | tr a-z A-Z", cwd=root, read_only=False)
    assert result["ok"] and result["stdout"] == "HI\n"
    assert (root / "made.txt").read_text() == "hi\n"


def test_planfile6_minimal_environment(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCONF_SECRET_TOKEN", "leak-me")
    result = run_command("echo $TOOLCONF_SECRET_TOKEN; pwd", cwd=root, read_only=False)
    assert "leak-me" not in result["stdout"] and str(root) in result["stdout"]


def test_planfile6_cwd_must_be_inside_the_root(root: Path) -> None:
    result = run_command("ls", cwd=outside(root), read_only=True, root=root)
    assert not result["ok"] and result["rule"] == "ACCESS-8"


def test_planfile6_timeout_kills_sleep(root: Path) -> None:
    start = time.monotonic()
    result = run_command("sleep 30", cwd=root, read_only=False, timeout=0.5)
    elapsed = time.monotonic() - start
    assert result["timed_out"] and not result["ok"] and elapsed < 15, (result, elapsed)
    assert "process group was killed" in result["text"]


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_planfile6_timeout_kills_the_whole_process_group(root: Path) -> None:
    start = time.monotonic()
    result = run_command("sleep 30 & echo $! > bg.pid; wait", cwd=root, read_only=False, timeout=0.5)
    assert result["timed_out"] and time.monotonic() - start < 15
    pid = int((root / "bg.pid").read_text())
    deadline = time.monotonic() + 5
    while not _dead(pid):
        assert time.monotonic() < deadline, f"background child {pid} survived the timeout"
        time.sleep(0.05)


def test_planfile6_output_is_capped(root: Path) -> None:
    result = run_command("head -c 200000 /dev/zero | tr '\\0' a", cwd=root, read_only=False, max_output=1000)
    assert result["ok"] and "more bytes not shown" in result["stdout"] and len(result["stdout"]) < 1100


@pytest.mark.skipif(shutil.which("setsid") is None, reason="setsid not installed")
def test_planfile6_bounded_even_when_a_child_escapes_the_group(root: Path) -> None:
    # A child in its own session keeps our stdout pipe open; we must still return promptly.
    start = time.monotonic()
    result = run_command("setsid sleep 30 & echo $! > esc.pid", cwd=root, read_only=False, timeout=25)
    elapsed = time.monotonic() - start
    pid = int((root / "esc.pid").read_text())
    try:
        assert elapsed < 20, elapsed  # far below the 30 s the escaped child lives, and the 25 s timeout
        assert result["exit_code"] == 0
    finally:
        try:
            os.kill(pid, 9)  # the escaped sleep this test started, by its own id
        except ProcessLookupError:
            pass
