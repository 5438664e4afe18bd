from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall, Trace


def test_a_run_total_is_not_spread_over_calls() -> None:
    result = evaluate([], Trace(calls=(ToolCall(tool="a"), ToolCall(tool="b")), run_cost=0.42))
    cost = result.metrics["cost_metrics"]
    assert cost["status"] == "unknown" and cost["total_cost"] is None
    assert cost["run_cost"] == 0.42


def test_partial_cost_covers_priced_calls() -> None:
    cost = evaluate([], [ToolCall(tool="a", cost=0.01), ToolCall(tool="b")]).metrics[
        "cost_metrics"]
    assert (cost["status"], cost["total_cost"], cost["measured_calls"]) == ("partial", 0.01, 1)
