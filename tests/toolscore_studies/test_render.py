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
