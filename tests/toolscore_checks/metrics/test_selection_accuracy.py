from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_share_of_calls_to_expected_tools() -> None:
    calls = [ToolCall(tool="search"), ToolCall(tool="search"), ToolCall(tool="rm"),
             ToolCall(tool="book")]
    result = evaluate([{"tool": "search"}, {"tool": "book"}], calls)
    assert result.metrics["selection_accuracy"] == 0.75


def test_no_calls() -> None:
    assert evaluate([], []).metrics["selection_accuracy"] == 1.0
    assert evaluate([{"tool": "a"}], []).metrics["selection_accuracy"] == 0.0
