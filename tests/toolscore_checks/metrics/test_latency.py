from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall, Trace


def test_measured_partial_unknown() -> None:
    measured = evaluate([], [ToolCall(tool="a", duration=0.5), ToolCall(tool="b", duration=1.0)])
    assert measured.metrics["latency_metrics"]["status"] == "measured"
    assert measured.metrics["latency_metrics"]["total_duration"] == 1.5
    unknown = evaluate([], Trace(calls=(ToolCall(tool="a"),), run_duration=9.0))
    latency = unknown.metrics["latency_metrics"]
    assert latency["status"] == "unknown" and latency["total_duration"] is None
    assert latency["run_duration"] == 9.0
