"""The verdict of an Inspect AI sample from its scores, by Inspect's own reading of a score.

Inspect's metrics read each score's value through ``value_to_float``
(``inspect_ai/scorer/_metric.py``): a number (a bool included) is itself, ``"C"`` (correct)
is 1, ``"P"`` (partial) 0.5, ``"I"`` (incorrect) and ``"N"`` (no answer) 0, ``"yes"`` /
``"true"`` 1, ``"no"`` / ``"false"`` 0, and text holding a number that number; a dict or a
list has no such reading (Inspect warns and counts it 0). ``accuracy()`` is the mean of
those floats, so a sample is correct when its value reads as 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from toolscore import count

KEPT = ("value", "answer", "explanation")
"""What each score keeps in ``imported.verdict.scores`` (Inspect's ``Score`` fields)."""


def as_float(value: Any) -> float | None:
    """``value_to_float`` of Inspect's default letters; None where it has no reading (a
    dict, a list, text that is no number), which Inspect counts as 0 with a warning."""
    if isinstance(value, bool | int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    letters = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
    if value in letters:
        return letters[value]
    lowered = value.lower()
    if lowered in ("yes", "true"):
        return 1.0
    if lowered in ("no", "false"):
        return 0.0
    try:
        number = float(lowered)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def kept_scores(scores: Mapping[str, Any]) -> dict[str, Any]:
    """Every score of the sample by scorer: its value, answer and explanation (null where
    the score has none)."""
    return {name: {key: score.get(key) for key in KEPT} if isinstance(score, Mapping)
            else {key: None for key in KEPT} for name, score in scores.items()}


def decide(scores: Mapping[str, Any], scorer: str | None
           ) -> tuple[bool | None, dict[str, Any], str | None]:
    """(passed, verdict, why there is none) of a sample's scores under ``scorer`` (None: the
    sample's one score). A value that reads as 1 passes, one in [0, 1) fails (partial
    credit is no pass); anything else is no verdict."""
    verdict: dict[str, Any] = {"scorer": scorer, "value": None, "score": None,
                               "scores": kept_scores(scores)}
    if not scores:
        return None, verdict, ("the sample has no score: the log was written without "
                               "scoring it (`inspect score LOG` scores a log)")
    if scorer is None:
        if len(scores) > 1:
            return None, verdict, (f"the sample has {count(len(scores), 'score')} "
                                   f"({', '.join(scores)}) and the log names no headline "
                                   "scorer: choose one with --option scorer=NAME")
        scorer = next(iter(scores))
        verdict["scorer"] = scorer
    if scorer not in scores:
        return None, verdict, (f"the sample has no score of the scorer {scorer!r} (it has "
                               f"{', '.join(scores)}): choose one with --option scorer=NAME")
    score = scores[scorer]
    value = score.get("value") if isinstance(score, Mapping) else None
    number = as_float(value)
    verdict.update(value=value, score=number)
    if number is None or not 0 <= number <= 1:
        return None, verdict, (f"the {scorer} score's value {_shown(value)} does not read as "
                               "correct (1) or not (0 to 1), as Inspect's value_to_float "
                               "reads C, P, I, N, numbers and yes/no")
    return number == 1, verdict, None


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
