"""The HTML report: escaping checked in the markup, then in a real headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from tests.toolscore_formats.reports.dom import Element, parse, table_rows
from tests.toolscore_formats.reports.samples import IMG, PIPE, SCRIPT, SECRET
from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate
from toolscore_formats.reports.html import content_security_policy, stylesheet, write
from toolscore_secrets.redaction import mask

# Every element the report itself writes; anything else came from the trace.
REPORT_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3",
               "p", "table", "thead", "tbody", "tr", "th", "td", "dl", "dt", "dd", "ul", "li",
               "section", "details", "summary", "pre", "div", "footer"}


def page(evaluation: Evaluation) -> str:
    out = io.StringIO()
    write(evaluation, out)
    return out.getvalue()


def evidence_rows(doc: Element) -> list[Element]:
    table = doc.by_id("evidence")
    assert table is not None and table.tag == "table"
    return [row for row in table.find_all("tbody")[0].children
            if isinstance(row, Element) and row.tag == "tr"]


def assert_nothing_injected(doc: Element, evaluation: Evaluation) -> None:
    """The trace's markup is text: no element, attribute or network reference came from it."""
    tags = {e.tag for e in doc.iter()} - {"#document"}
    assert tags <= REPORT_TAGS, tags - REPORT_TAGS
    for element in doc.iter():
        assert not {"src", "href", "onerror", "action"} & set(element.attrs), element
    rows = evidence_rows(doc)
    checks = evaluation.to_dict()["evidence"]["checks"]
    assert [r.attrs["data-check"] for r in rows] == [c["check"] for c in checks]
    assert [[cell for cell in table_rows_of(r)][:3] for r in rows] == [
        [c["check"], c["status"], c["reason"]] for c in checks]
    loud = next(r for r in rows if r.attrs["data-check"] == "loud<b>-check")
    assert table_rows_of(loud)[2] == f"tool said {SCRIPT} {PIPE}"
    result = doc.by_id("call-1")  # calls are numbered from 1
    assert result is not None
    assert f"{SCRIPT}\n{PIPE} key={mask(SECRET)}" in result.text()
    calls = doc.by_id("calls")
    assert calls is not None
    assert any(row[1].startswith(f"#2 fetch{IMG}(") for row in table_rows(calls))
    answer = doc.by_id("final-answer")
    assert answer is not None and answer.text() == evaluation.final_answer


def table_rows_of(row: Element) -> list[str]:
    return [c.text().strip() for c in row.children if isinstance(c, Element) and c.tag == "td"]


def test_page_is_self_contained_with_a_strict_policy(example_evaluation: Evaluation) -> None:
    html = page(example_evaluation)
    doc = parse(html)
    policy = next(m.attrs["content"] for m in doc.find_all("meta")
                  if m.attrs.get("http-equiv") == "Content-Security-Policy")
    assert policy is not None
    assert "default-src 'none'" in policy
    style = doc.find_all("style")
    assert len(style) == 1
    css = style[0].text()
    assert css == stylesheet()
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy
    assert not re.search(r"url\(|@import|https?:", css)
    assert not [e for e in doc.iter() if e.tag in ("script", "link", "img", "iframe")]


def test_example_page_shows_score_measures_and_evidence(example_evaluation: Evaluation) -> None:
    doc = parse(page(example_evaluation))
    score = doc.by_id("score")
    assert score is not None and score.text() == "87.5% B" and "grade-b" in score.classes()
    assert doc.by_id("latency").text() == "2.303s (3 of 4 calls)"  # type: ignore[union-attr]
    assert doc.by_id("cost").text() == "unknown"  # type: ignore[union-attr]
    summary = doc.by_id("evidence-summary")
    assert summary is not None and summary.text() == example_evaluation.evidence.summary()
    statuses = {r.attrs["data-check"]: r.attrs["data-status"] for r in evidence_rows(doc)}
    assert statuses == {c.check: c.status for c in example_evaluation.evidence}
    assert statuses["credentials"] == "pass" and statuses["call-errors"] == "fail"


def test_hostile_strings_are_escaped_in_the_markup(hostile_evaluation: Evaluation) -> None:
    html = page(hostile_evaluation)
    assert "<script" not in html and "<img" not in html and "<iframe" not in html
    assert "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'data-check="loud&lt;b&gt;-check"' in html
    assert SECRET not in html
    assert_nothing_injected(parse(html), hostile_evaluation)


def test_every_status_gets_its_own_class(hostile_evaluation: Evaluation) -> None:
    doc = parse(page(hostile_evaluation))
    for row in evidence_rows(doc):
        status = row.attrs["data-status"]
        cell = [c for c in row.children if isinstance(c, Element)][1]
        assert cell.classes() == {"status", status}
    assert {r.attrs["data-status"] for r in evidence_rows(doc)} == {"pass", "fail", "unknown"}


# -- in a real browser ------------------------------------------------------------------

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
WIDTH, HEIGHT = 1280, 2000


def require_chromium() -> str:
    """Debian's chromium; missing fails the test in CI (which installs it), else skips it."""
    path = shutil.which("chromium") or ("/usr/bin/chromium"
                                        if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI installs it, so its absence is a failure")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def chromium() -> str:
    return require_chromium()


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception),
                                              (None, pytest.skip.Exception)])
def test_missing_chromium_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, ci: str | None, outcome: type[BaseException],
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(os.path, "exists", lambda path: False)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome):
        require_chromium()


def run_chromium(chromium: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    done = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def hostile_page(hostile_evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(page(hostile_evaluation), encoding="utf-8")
    return path


@pytest.mark.chromium
def test_browser_builds_the_evidence_table_and_runs_no_trace_markup(
    chromium: str, hostile_page: Path, hostile_evaluation: Evaluation, tmp_path: Path,
) -> None:
    dumped = run_chromium(chromium, tmp_path, "--dump-dom", hostile_page.as_uri()).stdout
    doc = parse(dumped)
    assert doc.by_id("evidence") is not None, dumped[:500]
    assert not doc.find_all("script")
    assert_nothing_injected(doc, hostile_evaluation)


def _css_color(name: str) -> tuple[int, int, int]:
    hex_value = re.search(rf"--{name}:\s*#([0-9a-fA-F]{{6}});", stylesheet())
    assert hex_value is not None, name
    value = hex_value.group(1)
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _bands(rows_hit: list[bool]) -> list[tuple[int, int]]:
    """Runs of consecutive True rows as (first, last)."""
    bands: list[tuple[int, int]] = []
    start = None
    for y, hit in enumerate([*rows_hit, False]):
        if hit and start is None:
            start = y
        elif not hit and start is not None:
            bands.append((start, y - 1))
            start = None
    return bands


@pytest.mark.chromium
def test_screenshot_shows_one_colored_status_cell_per_check(
    chromium: str, hostile_page: Path, hostile_evaluation: Evaluation, tmp_path: Path,
) -> None:
    from PIL import Image

    shot = tmp_path / "report.png"
    run_chromium(chromium, tmp_path, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}",
                 "--hide-scrollbars", hostile_page.as_uri())
    image = Image.open(shot).convert("RGB")
    assert image.size == (WIDTH, HEIGHT)
    pixels = image.load()
    assert pixels is not None
    counts = hostile_evaluation.evidence.counts
    columns: set[tuple[int, int]] = set()
    for status in ("pass", "fail", "unknown"):
        background = _css_color(f"{status}-bg")
        # A row of the screenshot crosses a status cell when it holds more of that status's
        # exact background color than the cell's padding (text rows keep the padding).
        hits = [[x for x in range(WIDTH) if pixels[x, y] == background] for y in range(HEIGHT)]
        bands = [b for b in _bands([len(h) >= 8 for h in hits]) if b[1] - b[0] >= 12]
        assert len(bands) == counts[status], (status, bands)
        for top, bottom in bands:
            xs = [x for y in range(top, bottom + 1) for x in hits[y]]
            left, right = min(xs), max(xs)
            columns.add((left, right))
            # The status word is written in the cell: pixels that are not background.
            ink = sum(1 for y in range(top, bottom + 1) for x in range(left, right + 1)
                      if sum(abs(a - b) for a, b in zip(pixels[x, y], background, strict=True))
                      > 120)
            assert ink > 40, (status, top, bottom, ink)
    # Every status cell sits in the one Status column.
    assert len({left for left, _ in columns}) == 1, columns


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def loopback_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records the paths asked of it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _trap(base: str) -> str:
    """Markup that makes a browser fetch from ``base`` four ways, if it is live."""
    return (f'<img src="{base}/img"><link rel="stylesheet" href="{base}/css">'
            f'<iframe src="{base}/frame"></iframe><style>@import "{base}/import";</style>')


@pytest.mark.chromium
def test_the_page_fetches_nothing_even_when_the_trace_points_at_a_server(
    chromium: str, loopback_server: tuple[str, list[str]], tmp_path: Path,
) -> None:
    base, seen = loopback_server
    trap = _trap(f"{base}/report")
    trace = {"calls": [{"tool": "fetch", "args": {"url": trap}, "result": trap}],
             "final_answer": trap}
    report = tmp_path / "report.html"
    report.write_text(page(evaluate([{"tool": "fetch"}], trace)), encoding="utf-8")
    # Controls: the same markup live in a plain page is fetched, proving the server would
    # see a request; live under the report's policy it is not (the policy alone blocks it).
    live = tmp_path / "live.html"
    live.write_text(f"<!DOCTYPE html><title>live</title>{_trap(f'{base}/live')}",
                    encoding="utf-8")
    guarded = tmp_path / "guarded.html"
    policy = content_security_policy(stylesheet())
    guarded.write_text(
        f'<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="{policy}">'
        f"<title>guarded</title>{_trap(f'{base}/guarded')}", encoding="utf-8")
    for target in (report, live, guarded):
        run_chromium(chromium, tmp_path, "--dump-dom", target.as_uri())
    assert {"/live/img", "/live/css", "/live/frame"} <= set(seen), seen
    assert [path for path in seen if not path.startswith("/live/")] == [], seen


def test_invisible_and_reordering_characters_are_shown() -> None:
    """``sea\\u200brch`` is not ``search``, and a right-to-left override reorders nothing."""
    from toolscore_core.models import ToolCall

    sneaky = "sea\u200brch"
    text = page(evaluate([{"tool": "search"}],
                         [ToolCall(tool=sneaky, result="ok\u202eevil", is_error=False)]))
    assert "\u200b" not in text and "\u202e" not in text
    assert "sea\\u200brch" in text and "ok\\u202eevil" in text
