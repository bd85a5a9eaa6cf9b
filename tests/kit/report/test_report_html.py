"""The HTML page: self-contained, every rule present, a failed rule red, checked in headless Chromium.

Screenshots are kept under test-artifacts/ at the repository root (gitignored) for a human to look at.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.report.html import COLOURS, render_html
from pytest_toolconformance.rules import all_rules
from tests.paths import REPO

ARTIFACTS = REPO / "test-artifacts"
CAP1_MUTANT = "tests.subjects.mutants.cap_1_uncapped_description:factory"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
RED = tuple(int(COLOURS["failed"][0][i:i + 2], 16) for i in (1, 3, 5))


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(scope="session")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium; .ci/run installs it): "
                    "the HTML report is not rendered")
    return found


def kit_report(pytester: pytest.Pytester, *args: str) -> tuple[dict[str, Any], Path]:
    path = pytester.path / "conformance.json"
    result = pytester.runpytest(
        "--toolconformance", f"--toolconformance-report={path}", "-p", "no:cacheprovider", *args
    )
    assert path.is_file(), result.stdout.str()[-3000:]
    return json.loads(path.read_text("utf-8")), path.with_suffix(".html")


def render(chromium: str, page: Path, profile: Path, screenshot: Path | None = None, fragment: str = "") -> str:
    """Load the page (at ``#fragment``) in headless Chromium: the screenshot when asked, else the rendered DOM."""
    args = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2000"]
    args += [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    done = subprocess.run([*args, url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


def _add_bytes(x: bytes, y: bytes) -> bytes:
    """Bytewise (x + y) mod 256 over whole rows at once: SWAR on big ints keeps carries inside each byte."""
    n = len(x)
    low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
    a, b = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")


def _unfilter(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    if kind == 0:
        return line
    if kind == 2:
        return _add_bytes(line, prev)
    if kind == 1:
        out = bytearray(line)
        for ch in range(bpp):
            out[ch::bpp] = bytes(v & 0xFF for v in accumulate(line[ch::bpp]))
        return bytes(out)
    out = bytearray(line)
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if kind == 3:
            out[i] = (out[i] + (a + b) // 2) & 0xFF
        else:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return bytes(out)


def png_rows(path: Path) -> tuple[int, list[bytes]]:
    """(bytes per pixel, unfiltered rows) of an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes),
    decoded without Pillow."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        header = chunk if kind == b"IHDR" else header
        idat += chunk if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    rows: list[bytes] = []
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1 : start + 1 + stride], prev, bpp)
        rows.append(prev)
    return bpp, rows


def pixels_near(path: Path, colour: tuple[int, int, int], distance: int = 24) -> int:
    """Pixels within a small distance of ``colour``."""
    bpp, rows = png_rows(path)
    near = [range(max(0, v - distance), min(255, v + distance) + 1) for v in colour]
    return sum(
        1
        for row in rows
        for x in range(0, len(row), bpp)
        if row[x] in near[0] and row[x + 1] in near[1] and row[x + 2] in near[2]
    )


def red_pixels(path: Path) -> int:
    """Pixels within a small distance of the page's "failed" red."""
    return pixels_near(path, RED)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return (int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16))


TOOL_HEADER = _rgb("#ddf4ff")  # the per-tool table's header cells
PASSED_TINT = _rgb(COLOURS["passed"][1])
BROKEN_SCHEMA_4 = REPO / "tests" / "subjects" / "plugins" / "js" / "broken_schema_4"


def test_failing_plugin_page_filters_by_status_and_shows_each_tool(
    pytester: pytest.Pytester, chromium: str, node_ready: str, tmp_path: Path
) -> None:
    path = pytester.path / "conformance.json"
    pytester.runpytest(
        f"--toolconformance-plugin={BROKEN_SCHEMA_4}",
        f"--toolconformance-report={path}",
        "--toolconformance-max-examples=5",
        "-p",
        "no:cacheprovider",
    )
    report = json.loads(path.read_text("utf-8"))
    assert [r["id"] for r in report["rules"] if r["status"] == "failed"] == ["SCHEMA-4"]
    assert report["host"]["checked"] is False and report["ok"] is False
    page = path.with_suffix(".html")
    ARTIFACTS.mkdir(exist_ok=True)
    shots = {view: ARTIFACTS / f"report-broken-plugin-{view or 'all'}.png" for view in ("", "only-failed", "by-tool")}
    for view, shot in shots.items():
        shot.unlink(missing_ok=True)
        render(chromium, page, tmp_path / "profile", shot, fragment=view)
        assert shot.is_file() and shot.stat().st_size > 1000, f"chromium wrote no screenshot of #{view}"
    everything, failed_only, by_tool = (shots[v] for v in ("", "only-failed", "by-tool"))
    # The filter: passed rules (green-tinted sections) are on the full page and gone from #only-failed.
    assert pixels_near(everything, PASSED_TINT, 3) > 20000 and pixels_near(failed_only, PASSED_TINT, 3) < 500
    assert red_pixels(failed_only) > 5000, "the failed rule is not shown by the failed filter"
    # The per-tool view: its table is there (and the rule sections are not), and only there.
    assert pixels_near(by_tool, TOOL_HEADER, 3) > 1000 and pixels_near(everything, TOOL_HEADER, 3) == 0
    assert red_pixels(by_tool) < red_pixels(everything), "the rule sections still show in the per-tool view"
    dom = render(chromium, page, tmp_path / "profile")
    assert re.search(r'<tr class="row status-failed"><td>Double</td><td><a href="#schema-4">SCHEMA-4</a>', dom)
    assert "--toolconformance-seed=" in dom and "SCHEMA-4-broken_schema_4-Double]" in dom, (
        "the rerun line is not on the page"
    )


def test_mutant_page_shows_its_rule_red(
    pytester: pytest.Pytester, chromium: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    report, page = kit_report(pytester, f"--toolconformance-host={CAP1_MUTANT}", "-k", "CAP-1")
    assert [r["id"] for r in report["rules"] if r["status"] == "failed"] == ["CAP-1"]
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-cap-1-mutant.png"
    shot.unlink(missing_ok=True)
    render(chromium, page, tmp_path / "profile", shot)
    assert shot.is_file() and shot.stat().st_size > 1000, "chromium wrote no screenshot"
    dom = render(chromium, page, tmp_path / "profile")
    missing = [rule for rule in all_rules() if not re.search(rf"\b{re.escape(rule)}\b", dom)]
    assert not missing, f"rule IDs absent from the rendered page: {missing}"
    section = re.search(r'<section class="rule status-(\w[\w-]*)" id="cap-1" data-rule="CAP-1"', dom)
    assert section and section.group(1) == "failed", "CAP-1 is not rendered as failed"
    assert "rules.md" not in dom, "a link to docs/rules.md is dead outside the kit's repository"
    assert all_rules()["CAP-1"].statement.split("`")[0] in dom, "CAP-1's own text is not on the page"
    assert "[CAP-1]" in dom, "the failure message is not on the page"

    # Red, measurably: the same page for the reference host has (almost) no red at all.
    reference, ref_page = kit_report(pytester, "-k", "CAP-1")
    assert reference["ok"] is True
    ref_shot = ARTIFACTS / "report-reference.png"
    render(chromium, ref_page, tmp_path / "profile", ref_shot)
    mutant_red, reference_red = red_pixels(shot), red_pixels(ref_shot)
    assert mutant_red > 5000 and reference_red < 200, (mutant_red, reference_red)


# -- the page without a browser --------------------------------------------------------------------


def _report(status: str = "failed", message: str = "[CAP-1] expected <b>", **extra: Any) -> dict[str, Any]:
    rule = {
        "id": "CAP-1",
        "family": "CAP",
        "binds": "host",
        "statement": "Descriptions are capped <i>.",
        "reading": None,
        "seed": "¶1",
        "fix": "Cap them.",
        "status": status,
        "tests": [{"nodeid": "suite_x.py::test_a", "outcome": status}],
        "decided_by": ["suite_x.py::test_a"],
        "messages": [message],
        **extra,
    }
    return {
        "format": "pytest-toolconformance/report/1",
        "kit": {"name": "pytest-toolconformance", "version": "0"},
        "host": {"spec": "m:f", "name": "h<script>", "version": "1", "capabilities": ["calls"]},
        "plugins": [],
        "run": {"seed": 7, "seed_sentence": "seed 7 (given)"},
        "ok": status != "failed",
        "why": ["1 rule(s) failed, 0 errored"] if status == "failed" else [],
        "summary": {
            "rules": 1,
            "tests": 1,
            "passed": 0,
            "failed": int(status == "failed"),
            "errored": 0,
            "deviation": int(status == "deviation"),
            "blocked": 0,
            "skipped": 0,
            "not-applicable": 0,
            "not-run": 0,
        },
        "rules": [rule],
        "out_of_scope": [{"id": "REG-1", "reason": "a plugin rule"}],
        "unknown_rules": [],
        "deviations": {"file": None, "entries": [], "stale": [], "unused": []},
    }


def test_page_is_self_contained_and_escaped() -> None:
    html = render_html(_report())
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert not re.search(r"\s(src|srcset)=", html) and "url(" not in html
    assert not re.search(r'href="(https?:)?//', html), "the page must not load or point at external assets"
    assert "[CAP-1] expected &lt;b&gt;" in html and "h&lt;script&gt;" in html
    assert 'id="cap-1"' in html and 'href="#cap-1"' in html and "rules.md" not in html
    assert "Descriptions are capped &lt;i&gt;." in html and "Cap them." in html and "seed 7 (given)" in html
    assert "REG-1" in html and "a plugin rule" in html, "out-of-scope rules are still named, with the reason"
    assert "does not conform" in html and "1 rule(s) failed" in html


def test_deviation_shows_reason_and_link() -> None:
    dev = [{"entry": 1, "rule": "CAP-1", "reason": "capped at 1,024", "link": "https://tracker.example/1"}]
    html = render_html(_report("deviation", deviation=dev))
    assert "Known deviation" in html and "capped at 1,024" in html and 'href="https://tracker.example/1"' in html
    assert 'class="rule status-deviation"' in html
