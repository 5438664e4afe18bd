import io
import json

from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall
from toolscore_formats.reports import json_report


def test_summary_statuses_and_nulls() -> None:
    stream = io.StringIO()
    json_report.write(evaluate([], [ToolCall(tool="a", duration=1.25), ToolCall(tool="b")]),
                      stream)
    report = json.loads(stream.getvalue())
    assert report["summary"]["latency_status"] == "partial"
    assert report["summary"]["total_duration"] == 1.25
    assert report["summary"]["cost_status"] == "unknown"
    assert report["summary"]["total_cost"] is None
