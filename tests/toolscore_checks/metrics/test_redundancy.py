from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_calls_beyond_the_contract_count_per_tool() -> None:
    calls = [ToolCall(tool="search")] * 3 + [ToolCall(tool="book")]
    result = evaluate([{"tool": "search"}, {"tool": "book"}], calls)
    assert result.metrics["redundant_rate"] == 0.5
    score = next(m.score for m in result.metric_results if m.id == "redundant_rate")
    assert score == 0.5
