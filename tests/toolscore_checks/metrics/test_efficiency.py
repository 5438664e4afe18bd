from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_errors_and_blind_retries() -> None:
    calls = [ToolCall(tool="a", args={"x": 1}, is_error=True, error="e"),
             ToolCall(tool="a", args={"x": 1}, is_error=True, error="e"),
             ToolCall(tool="a", args={"x": 2}, result="ok", is_error=False), ToolCall(tool="b")]
    value = evaluate([], calls).metrics["efficiency_metrics"]
    assert value == {"calls": 4, "calls_with_outcome": 3, "errors": 2,
                     "error_rate": round(2 / 3, 12), "retries_after_error": 1}


def test_null_when_no_outcome_is_known() -> None:
    value = evaluate([], [ToolCall(tool="a")]).metrics["efficiency_metrics"]
    assert value["errors"] is None and value["error_rate"] is None
