from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from toolscore_checks.metrics.sequence_accuracy import distance
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall


def test_edit_distance_over_tool_names() -> None:
    calls = [ToolCall(tool=t) for t in ("a", "x", "c")]
    assert evaluate([{"tool": t} for t in "abcd"], calls).metrics["sequence_accuracy"] == 0.5


@given(st.lists(st.sampled_from("abc"), max_size=300), st.lists(st.sampled_from("abc"),
                                                                 max_size=300))
def test_banded_distance_is_exact(a: list[str], b: list[str]) -> None:
    assert distance(a, b) == Levenshtein.distance(a, b)


@st.composite
def _long_pair(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A long expected sequence and a noisy copy: drops, extras, swaps and bursts."""
    tools = draw(st.lists(st.text("abcdefgh", min_size=1, max_size=3), min_size=1,
                          max_size=12, unique=True))
    seed = draw(st.integers(0, 2**32))
    import random

    rng = random.Random(seed)
    n = draw(st.integers(4097, 12_000))
    noise = draw(st.sampled_from([0.0, 0.01, 0.06, 0.3]))
    expected = [rng.choice(tools) for _ in range(n)]
    actual: list[str] = []
    for name in expected:
        roll = rng.random()
        if roll < noise / 3:
            continue
        if roll < 2 * noise / 3:
            actual.append(rng.choice(tools))
        elif roll < noise:
            actual.extend([name] * rng.randint(2, 40))
        else:
            actual.append(name)
    return expected, actual


@settings(max_examples=25, deadline=None)
@given(_long_pair())
def test_long_sequences_get_the_exact_distance(pair: tuple[list[str], list[str]]) -> None:
    """Thousands of names, near or far from the contract: the growing cutoff stays exact."""
    expected, actual = pair
    assert distance(expected, actual) == Levenshtein.distance(expected, actual)


def test_more_distinct_tools_than_characters_are_compared_as_names() -> None:
    names = [f"t{i}" for i in range(60_000)]
    assert distance(names, names[::-1]) == Levenshtein.distance(names, names[::-1])
