"""The Markdown report, read back through a CommonMark + GFM-tables renderer."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tests.toolscore_formats.reports.dom import Element, header, parse, table_rows
from tests.toolscore_formats.reports.samples import IMG, PIPE, SCRIPT, SECRET
from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall, Trace
from toolscore_core.plugins import (
    BUILTIN_PLUGINS,
    DISABLE_ENV,
    build_registry,
    get_plugin_manager,
)
from toolscore_formats.reports.markdown import code_block, escape, write
from toolscore_secrets.redaction import mask

# As GitHub renders it: raw HTML allowed, so escaping is what keeps it out.
RENDERER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def markdown(evaluation: Evaluation) -> str:
    out = io.StringIO()
    write(evaluation, out)
    return out.getvalue()


def rendered(text: str) -> Element:
    return parse(RENDERER.render(text))


def table_with(doc: Element, first_column: str) -> Element:
    tables = [t for t in doc.find_all("table") if header(t)[0] == first_column]
    assert len(tables) == 1, f"expected one table headed {first_column!r}"
    return tables[0]


def test_evidence_table_has_one_row_per_check(example_evaluation: Evaluation) -> None:
    text = markdown(example_evaluation)
    table = table_with(rendered(text), "Check")
    assert header(table) == ["Check", "Status", "Reason"]
    checks = example_evaluation.to_dict()["evidence"]["checks"]
    assert table_rows(table) == [[c["check"], c["status"], c["reason"]] for c in checks]
    assert f"**{example_evaluation.evidence.summary()}**" in text


def test_example_report_shows_score_metrics_findings_and_calls(
    example_evaluation: Evaluation,
) -> None:
    text = markdown(example_evaluation)
    doc = rendered(text)
    assert doc.find_all("h1")[0].text() == "toolscore report: 87.5% B"
    metrics = dict((row[0], row[1]) for row in table_rows(table_with(doc, "Metric")))
    assert metrics["argument_f1"] == "83.3%"
    assert "- Latency: 2.303s (3 of 4 calls)" in text
    assert "- Cost: unknown" in text
    assert "call #2 book_flight failed: 'Seat map unavailable'" in doc.text()
    calls = table_rows(table_with(doc, "Expected"))
    assert ["", '#2 book_flight(flight_id="UA123", passengers=1)', "unexpected", "error",
            "1.030s", "Seat map unavailable"] in calls
    assert calls[2][1:5] == ['#4 send_email(to="ana@example.com", subject="Your booking")',
                             "match", "unknown", "unknown"]
    assert "4 calls: 3 with an outcome, 3 with a duration, 0 with a cost" in text


def _with_durations(durations: list[float | None]) -> Evaluation:
    calls = tuple(ToolCall(tool="t", args={}, duration=d, is_error=False) for d in durations)
    return evaluate([{"tool": "t"}], Trace(calls=calls))


@pytest.mark.parametrize(("durations", "shown"), [
    ([None, None], "- Latency: unknown"),
    ([0.5, None, 0.734, 0.0, None], "- Latency: 1.234s (3 of 5 calls)"),
    ([0.0, 0.0], "- Latency: 0.000s"),
])
def test_latency_is_unknown_partial_or_measured_never_a_made_up_zero(
    durations: list[float | None], shown: str,
) -> None:
    text = markdown(_with_durations(durations))
    assert shown in text.splitlines()


def test_hostile_trace_cannot_break_tables_or_inject_html(hostile_evaluation: Evaluation) -> None:
    text = markdown(hostile_evaluation)
    doc = rendered(text)
    # Nothing the trace said became an element: only what the report itself writes.
    tags = {e.tag for e in doc.iter()} - {"#document"}
    assert tags <= {"h1", "h2", "p", "ul", "li", "strong", "table", "thead", "tbody", "tr",
                    "th", "td", "br", "pre", "code", "sub"}
    calls = table_with(doc, "Expected")
    rows = table_rows(calls)
    assert all(len(row) == 6 for row in rows)
    search = next(row for row in rows if row[1].startswith("#1 search"))
    assert search[1] == '#1 search(q="`rm -rf /` | <b>bold</b> *x*")'
    assert search[5] == f"{SCRIPT}\n{PIPE} key={mask(SECRET)}"
    fetch = next(row for row in rows if "fetch" in row[1])
    assert fetch[1].startswith(f"#2 fetch{IMG}(")
    assert fetch[5] == "<iframe src=https://evil.example/></iframe> | _fail_"
    evidence = table_rows(table_with(doc, "Check"))
    assert ["loud<b>-check", "fail", f"tool said {SCRIPT} {PIPE}"] in evidence
    assert ["unsure-check", "unknown", "no final answer to look at `here`"] in evidence
    assert len(evidence) == len(hostile_evaluation.evidence)
    answer = doc.find_all("pre")[-1].text()
    assert answer == hostile_evaluation.final_answer + "\n"
    assert SECRET not in text


def test_missing_expected_call_is_listed(hostile_evaluation: Evaluation) -> None:
    rows = table_rows(table_with(rendered(markdown(hostile_evaluation)), "Expected"))
    assert ["#3 archive (arguments not checked)", "", "missing", "", "", ""] in rows


# Any printable text, with the line breaks and tabs a tool result may hold.
CHARACTERS = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"),
                           include_characters="\n\r\t")
CELL_TEXT = st.text(CHARACTERS, max_size=60)


@given(CELL_TEXT)
def test_any_text_stays_one_cell_and_reads_back_unchanged(text: str) -> None:
    source = f"| a | b |\n|---|---|\n| {escape(text)} | end |\n"
    doc = rendered(source)
    tables = doc.find_all("table")
    assert len(tables) == 1
    assert table_rows(tables[0]) == [[_as_cell(text), "end"]]
    assert {e.tag for e in doc.iter()} <= {"#document", "table", "thead", "tbody", "tr", "th",
                                           "td", "br"}


@given(CELL_TEXT)
def test_any_text_stays_one_list_item(text: str) -> None:
    doc = rendered(f"- {escape(text)}\n- end\n")
    items = doc.find_all("li")
    assert [i.text().strip() for i in items] == [_as_cell(text), "end"]


@given(st.text(CHARACTERS, max_size=80))
def test_final_answer_block_holds_any_text_verbatim(text: str) -> None:
    doc = rendered(code_block(text) + "\n\nafter\n")
    blocks = doc.find_all("pre")
    assert len(blocks) == 1
    assert blocks[0].text() == re.sub(r"\r\n|\r", "\n", _shown(text)) + "\n"
    assert doc.find_all("p")[-1].text() == "after"


def _as_cell(text: str) -> str:
    """What a cell shows: invisible and reordering characters as ``\\uNNNN`` (as every
    report shows them), each line trimmed, lines joined by <br> (read back as newlines)."""
    lines = re.split(r"\r\n|\r|\n", _shown(text))
    return "\n".join(line.strip() for line in lines).strip()


def _shown(text: str) -> str:
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# What reports show as \uNNNN (not ZWJ/ZWNJ or direction marks, which scripts need).
INVISIBLE = re.compile("[\u200b\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]")


def test_no_check_and_no_call_still_make_a_report() -> None:
    checks = [name for name in BUILTIN_PLUGINS
              if name.startswith("toolscore_checks.") and ".metrics." not in name]
    pm = get_plugin_manager(entry_points=False, env={DISABLE_ENV: ",".join(checks)})
    text = markdown(evaluate([], Trace(), registry=build_registry(pm)))
    lines = text.splitlines()
    assert "**Evidence: 0 pass, 0 fail, 0 unknown**" in lines
    assert "No check ran." in lines
    assert "No call was expected and none was made." in lines
    assert "0 calls vs 0 expected" in lines
    assert "- Failed calls: unknown" in lines
    assert lines[lines.index("## Final answer") + 2] == "unknown"


def test_control_characters_are_shown_not_written() -> None:
    """A report opened with ``cat`` or ``less -R`` obeys no ESC, BEL or C1 code of a trace."""
    nasty = "a\x1b[2Jb\x07\x9b31m"
    assert escape(nasty) == "a\\\\x1b\\[2Jb\\\\x07\\\\x9b31m"
    assert code_block(nasty) == "```text\na\\x1b[2Jb\\x07\\x9b31m\n```"
    text = markdown(evaluate([{"tool": "t"}], [ToolCall(tool="t", result=nasty,
                                                        is_error=False)], final_answer=nasty))
    assert not any(ch in text for ch in "\x1b\x07\x9b")


def test_invisible_and_reordering_characters_are_shown() -> None:
    assert escape("a\u202eb\u200bc\ufeff") == "a\\\\u202eb\\\\u200bc\\\\ufeff"


@pytest.mark.parametrize("text", ["\ufeff", "a\ufeff", "\ufeffa", " \ufeff\n", "x\u202ey"])
def test_a_byte_order_mark_or_bidi_override_reads_back_shown(text: str) -> None:
    """Hypothesis rarely draws these; they once made the properties above fail at random."""
    test_any_text_stays_one_cell_and_reads_back_unchanged.hypothesis.inner_test(text)
    test_any_text_stays_one_list_item.hypothesis.inner_test(text)
    test_final_answer_block_holds_any_text_verbatim.hypothesis.inner_test(text)


def test_joiners_and_marks_that_scripts_need_are_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji, joined by ZWJ
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ inside a word
    assert escape(family) == family and escape(persian) == persian
    assert escape("\u200fabc\u200e") == "\u200fabc\u200e"


def test_a_readers_notes_are_a_section() -> None:
    from toolscore_core.evaluation import evaluate
    from toolscore_core.models import ToolCall, Trace

    trace = Trace(calls=(ToolCall(tool="a"),), notes=("1 value written as NaN was read as null",))
    assert "## Trace notes\n\n- 1 value written as NaN was read as null\n" in markdown(
        evaluate([{"tool": "a"}], trace))
