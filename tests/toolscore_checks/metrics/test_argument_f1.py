from toolscore_core.evaluation import evaluate
from toolscore_core.matchers import Regex
from toolscore_core.models import ExpectedCall, ToolCall


def test_per_call_f1_averaged_over_checked_expected_calls() -> None:
    expected = [ExpectedCall(tool="a", args={"x": 1, "y": 2}),
                ExpectedCall(tool="b", args={"q": Regex("^cat")}),
                ExpectedCall(tool="c")]
    calls = [ToolCall(tool="a", args={"x": 1, "y": 3}), ToolCall(tool="b", args={"q": "cats"}),
             ToolCall(tool="c", args={"whatever": 1})]
    # a: 1 of 2 keys right -> F1 0.5; b: 1.0; c is not checked
    assert evaluate(expected, calls).metrics["argument_f1"] == 0.75


def test_a_missing_call_counts_zero_and_extra_args_lower_precision() -> None:
    expected = [ExpectedCall(tool="a", args={"x": 1}), ExpectedCall(tool="b", args={})]
    calls = [ToolCall(tool="a", args={"x": 1, "verbose": True})]
    # a: 2*1/(1+2) = 0.667; b was never made: 0
    assert evaluate(expected, calls).metrics["argument_f1"] == round((2 / 3) / 2, 12)
