"""README.md's option table is the options' one declaration (options.OPTIONS), written out."""

from __future__ import annotations

from pytest_toolconformance.options import OPTIONS
from tests.paths import REPO

README = REPO / "README.md"
HEAD = "| option | ini | meaning |\n|---|---|---|\n"


def expected_table() -> str:
    rows = []
    for option in OPTIONS:
        flag = f"{option.flag}={option.metavar}" if option.metavar else option.flag
        flag = flag.replace("|", "\\|")  # a bare | would end the table cell, even inside backticks
        rows.append(f"| `{flag}` | `{option.ini}` | {option.help} |")
    return HEAD + "\n".join(rows) + "\n"


def test_readme_lists_every_option_as_declared() -> None:
    text = README.read_text()
    start = text.index(HEAD)
    end = text.index("\n\n", start)
    table = text[start:end + 1]
    assert table == expected_table(), (
        "README.md's option table differs from pytest_toolconformance/options.py OPTIONS; replace it with:\n\n"
        + expected_table()
    )
