"""The repository speaks of the product: no tracked file cites the work that made it (a work session's or a
work item's number). A figure says the commit and date it was taken on instead; a test says what it
holds, not which report asked for it.

"session" is also the seam's own word (a session composes tools); no tracked file uses it before a
number, so there is no exception to make. Should data ever need one, name the file here with why.
"""

from __future__ import annotations

import re
import subprocess

from tests.paths import REPO

#: A work item's number after its name (the word, a space, digits), singular or plural, either case.
WORK_ITEM = re.compile(r"\b([Ss]ession|[Ii]ssue)s? [0-9]+")
#: Files where such a phrase is the product's own data, with why (none today).
EXEMPT: dict[str, str] = {}


def tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name and name not in EXEMPT]


def work_items(text: str) -> list[str]:
    return [match.group(0) for match in WORK_ITEM.finditer(text)]


def test_no_tracked_file_cites_a_work_item() -> None:
    found = []
    for name in tracked_text_files():
        path = REPO / name
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a binary file, or one deleted in the working tree
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in WORK_ITEM.finditer(text)]
    assert found == [], "the repository speaks of the product, not of the work that made it:\n" + "\n".join(found)


def test_the_phrase_is_found_where_it_is_and_not_in_the_seams_own_words() -> None:
    # Put together here, so that this file holds no such phrase itself.
    session, issue = "session", "issue"
    assert work_items(f"main in {session} 3 (ce6bf47)") == [f"{session} 3"]
    assert work_items(f'"""{issue.title()} 24, item 6: a scenario') == [f"{issue.title()} 24"]
    assert work_items(f"({issue}s 16 and 21, hosts/*/README.md)") == [f"{issue}s 16"]
    assert work_items("## Session composition, 100k tools; a session opens on 1k") == []
