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


def test_retries_are_unknown_when_a_repeat_s_arguments_are_not_in_the_trace() -> None:
    # Whether the second call repeated the failed one cannot be told without its arguments;
    # two calls whose arguments did not decode repeat only when their text is the same.
    unread = [ToolCall(tool="a", is_error=True, error="e"),
              ToolCall(tool="a", result="ok", is_error=False)]
    assert evaluate([], unread).metrics["efficiency_metrics"]["retries_after_error"] is None
    garbled = [ToolCall(tool="a", raw_args="{x: 1", is_error=True, error="e"),
               ToolCall(tool="a", raw_args="{x: 2", result="ok", is_error=False)]
    assert evaluate([], garbled).metrics["efficiency_metrics"]["retries_after_error"] == 0
