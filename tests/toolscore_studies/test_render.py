from __future__ import annotations

from markdown_it import MarkdownIt

from toolscore_studies.render import summary_markdown
from toolscore_studies.summary import StudySummary

HOSTILE = "<img src=x onerror=alert(1)>|*x*"


def test_study_names_and_task_ids_are_inert_markdown() -> None:
    summary = StudySummary()
    summary.add_row({"kind": "toolscore.agent_run", "study": HOSTILE, "task_id": HOSTILE,
                     "outcome": "passed", "evaluation": {"score": 1.0}, "duration": 1.0,
                     "cost": None})
    text = summary_markdown(summary.to_dict())
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in html and "<em>" not in html
    table = [line for line in text.splitlines() if line.startswith("| ")]
    # the header, the task and the total: the task id's | splits no cell
    assert {line.count(" | ") for line in table} == {len(table[0].split(" | ")) - 1}
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def _regraded(flips: dict[tuple[str, str | None, str | None], int]) -> dict:
    from toolscore_studies.summary import RegradeSummary

    summary = RegradeSummary()
    summary.check_flips.update(flips)
    return summary.to_dict()


def test_the_checks_that_flipped_in_markdown_and_html() -> None:
    from html.parser import HTMLParser

    from toolscore_studies.render import regrade_markdown, summary_html

    data = _regraded({("required-calls", "pass", "fail"): 3, (HOSTILE, None, "unknown"): 1,
                      ("required-calls", "fail", "pass"): 2})
    assert [(f["check"], f["before"], f["after"], f["runs"]) for f in data["check_flips"]] == [
        (HOSTILE, None, "unknown", 1), ("required-calls", "fail", "pass", 2),
        ("required-calls", "pass", "fail", 3)]
    text = regrade_markdown(data)
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in html
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")]
            for line in text.splitlines() if line.startswith("| required-calls")]
    assert rows == [["required-calls", "fail", "pass", "2"],
                    ["required-calls", "pass", "fail", "3"]]
    assert "| (not run) | unknown | 1 |" in text

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inside, self.cells = False, []

        def handle_starttag(self, tag: str, attrs: list) -> None:
            self.inside = self.inside or ("class", "check-flips") in attrs
            if tag == "img":
                raise AssertionError("trace content became markup")

        def handle_data(self, data: str) -> None:
            if self.inside:
                self.cells.append(data)

    page = Cells()
    page.feed(summary_html(data["after"], regrade=data))
    assert page.cells[:4] == ["Check", "Before", "After", "Runs"]
    assert page.cells[4:8] == [HOSTILE, "(not run)", "unknown", "1"]
    assert "No check flipped." in regrade_markdown(_regraded({}))
    assert "No check flipped." in summary_html(_regraded({})["after"], regrade=_regraded({}))
