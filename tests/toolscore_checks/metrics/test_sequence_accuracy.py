from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from toolscore_checks.metrics.sequence_accuracy import _distance
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_edit_distance_over_tool_names() -> None:
    calls = [ToolCall(tool=t) for t in ("a", "x", "c")]
    assert evaluate([{"tool": t} for t in "abcd"], calls).metrics["sequence_accuracy"] == 0.5


@given(st.lists(st.sampled_from("abc"), max_size=300), st.lists(st.sampled_from("abc"),
                                                                 max_size=300))
def test_banded_distance_is_exact(a: list[str], b: list[str]) -> None:
    assert _distance(a, b, Levenshtein) == Levenshtein.distance(a, b)
