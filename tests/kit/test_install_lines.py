"""Every install line the README and docs give works today (issue 24, item 3).

Until the kit's first release is on PyPI, ``pip install pytest-toolconformance`` finds nothing, so a
line a user runs (not a comment saying what to run once it is released) installs the kit from a
folder, a built wheel or its repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import REPO

DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
_INSTALL = re.compile(r"pip install\s+(?P<args>[^;&|]*)")  # to the end of the command
_WORKS_TODAY = re.compile(r"^\"?(\.|\./|/|dist/|pytest-toolconformance @ git\+|\S+\.whl)")


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
