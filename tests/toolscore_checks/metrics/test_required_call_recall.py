from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_failed_and_unknown_outcomes_are_not_done() -> None:
    expected = [{"tool": "a"}, {"tool": "b"}, {"tool": "c"}, {"tool": "d", "required": False}]
    calls = [ToolCall(tool="a", result="ok", is_error=False),
             ToolCall(tool="b", is_error=True, error="503"), ToolCall(tool="c")]
    assert evaluate(expected, calls).required_call_recall == round(1 / 3, 12)


def test_nothing_required_is_unknown() -> None:
    result = evaluate([{"tool": "a", "required": False}], [])
    assert result.required_call_recall is None
    heavy = evaluate([{"tool": "a", "required": False}], [],
                     weights={"required_call_recall": 1.0})
    assert "required_call_recall" in heavy.unscored
