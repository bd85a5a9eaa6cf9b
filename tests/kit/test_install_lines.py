"""Every install line the README and docs give works today.

Until the kit's first release is on PyPI, ``pip install pytest-toolconformance`` finds nothing, so a
line a user runs (not a comment saying what to run once it is released) installs the kit from a
folder (a clone, a submodule, the action's own files) or a built wheel; never from a repository URL
with a placeholder owner or a tag that does not exist yet.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import REPO

DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
_INSTALL = re.compile(r"pip install\s+(?P<args>[^;&|]*)")  # to the end of the command
_WORKS_TODAY = re.compile(r"^\"?(\.|\./|/|dist/|\"?\$GITHUB_ACTION_PATH|\S+\.whl)")
#: What a user would have to replace before a line runs.
_PLACEHOLDER = re.compile(r"\bOWNER\b|<owner>|<your[^>]*>|git\+https://github\.com/[^/\s]+/pytest-toolconformance")


def kit_requirements(text: str) -> list[str]:
    """The requirements naming the kit on each install line, as a user would run them."""
    found = []
    for line in text.splitlines():
        command = line.split("#", 1)[0]  # what a comment says is to run later, not now
        for match in _INSTALL.finditer(command):
            found += [word for word in re.findall(r'"[^"]*"|\S+', match["args"]) if "toolconformance" in word]
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_each_install_line_of_the_kit_works_before_its_first_release(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    unreleased = [word for word in kit_requirements(text) if not _WORKS_TODAY.match(word.strip("'"))]
    assert unreleased == [], (
        f"{document}: install lines name the kit as published ({unreleased}); until its first release "
        "install it from a folder, a wheel or its repository and say the published name in a comment"
    )


def test_a_published_name_is_unreleased_and_a_comment_is_not_a_command() -> None:
    lines = 'run: python -m pip install "pytest-toolconformance==0.1.0" pytest-xdist\n'
    assert kit_requirements(lines) == ['"pytest-toolconformance==0.1.0"']
    assert not _WORKS_TODAY.match(kit_requirements(lines)[0])
    later = "pip install ./pytest-toolconformance  # once released: pip install pytest-toolconformance"
    assert kit_requirements(later) == ["./pytest-toolconformance"]


WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


@pytest.mark.parametrize("document", [*DOCUMENTS, REPO / "action.yml", *WORKFLOWS], ids=lambda path: path.name)
def test_no_line_to_run_holds_a_placeholder(document: Path) -> None:
    commands = [line.split("#", 1)[0] for line in document.read_text(encoding="utf-8").splitlines()]
    held = [line.strip() for line in commands if _PLACEHOLDER.search(line)]
    assert held == [], f"{document}: lines a user must edit before they run: {held}"
