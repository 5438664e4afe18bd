"""Optimal one-to-one pairing of expected calls with actual calls of the same tool.

Every metric that compares arguments, and every check that asks "was this expected call
made", uses this one pairing. Within each tool, calls are paired to maximise the total
per-pair argument F1: identical calls are paired first (in order), then the rest are
solved as an assignment problem (Hungarian algorithm; SciPy's for large groups). Groups
whose leftover block exceeds ``WINDOW`` calls on both sides are solved in consecutive
windows of that size, in trace order, so the cost stays linear in the trace length.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

from attrs import frozen

from toolscore_core.matchers import has_matcher, values_match
from toolscore_core.models import ExpectedCall, ToolCall

WINDOW = 400
_SMALL = 24


@frozen
class Pair:
    """An expected call paired with the actual call that answers it."""

    expected: int
    """Index in the contract's expected calls."""
    actual: int
    """Index in the trace's calls."""
    matched_args: int
    """Expected arguments the actual call matched (0 when arguments are not checked)."""
    score: float
    """Per-pair argument F1 (1.0 when arguments are not checked)."""
    args_checked: bool
    """False when the expected call omits ``args``."""


@frozen
class Pairing:
    pairs: tuple[Pair, ...]
    """Pairs in the order of the expected calls."""
    unpaired_expected: tuple[int, ...]
    unpaired_actual: tuple[int, ...]

    def actual_for(self, expected_index: int) -> int | None:
        for pair in self.pairs:
            if pair.expected == expected_index:
                return pair.actual
        return None


def _key(args: Any) -> str:
    return json.dumps(args, sort_keys=True, separators=(",", ":"), default=repr)


def pair_score(expected: ExpectedCall, actual: ToolCall) -> tuple[float, int]:
    """Per-pair argument F1 and matched argument count."""
    if expected.args is None:
        return 1.0, 0
    exp_args = expected.args
    act_args = actual.args or {}
    if not exp_args and not act_args:
        return 1.0, 0
    matched = 0
    for name, want in exp_args.items():
        if name in act_args and values_match(want, act_args[name]):
            matched += 1
    return 2.0 * matched / (len(exp_args) + len(act_args)), matched


def pair_calls(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    """The optimal pairing (see the module docstring)."""
    by_tool_exp: dict[str, list[int]] = defaultdict(list)
    by_tool_act: dict[str, list[int]] = defaultdict(list)
    for i, wanted in enumerate(expected):
        by_tool_exp[wanted.tool].append(i)
    for j, made in enumerate(actual):
        by_tool_act[made.tool].append(j)

    pairs: list[Pair] = []
    for tool, exp_idx in by_tool_exp.items():
        act_idx = by_tool_act.get(tool)
        if not act_idx:
            continue
        left_exp, left_act = _pair_identical(expected, actual, exp_idx, act_idx, pairs)
        for start in range(0, max(len(left_exp), len(left_act)), WINDOW):
            block_e = left_exp[start:start + WINDOW]
            block_a = left_act[start:start + WINDOW]
            if block_e and block_a:
                _assign(expected, actual, block_e, block_a, pairs)
    pairs.sort(key=lambda p: p.expected)
    paired_e = {p.expected for p in pairs}
    paired_a = {p.actual for p in pairs}
    return Pairing(
        pairs=tuple(pairs),
        unpaired_expected=tuple(i for i in range(len(expected)) if i not in paired_e),
        unpaired_actual=tuple(j for j in range(len(actual)) if j not in paired_a),
    )


def _pair_identical(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], exp_idx: list[int],
    act_idx: list[int], pairs: list[Pair],
) -> tuple[list[int], list[int]]:
    """Pair expected calls with literal args to actual calls with exactly those args."""
    queues: dict[str, deque[int]] = defaultdict(deque)
    for j in act_idx:
        call = actual[j]
        if call.args is not None:
            queues[_key(call.args)].append(j)
    used: set[int] = set()
    left_exp: list[int] = []
    for i in exp_idx:
        args = expected[i].args
        if args is None or has_matcher(args):
            left_exp.append(i)
            continue
        found = _take_best(queues.get(_key(args)), args, actual)
        if found is None:
            left_exp.append(i)
            continue
        j = found
        used.add(j)
        pairs.append(Pair(expected=i, actual=j, matched_args=len(args), score=1.0,
                          args_checked=True))
    return left_exp, [j for j in act_idx if j not in used]


_OUTCOME_RANK = {False: 0, None: 1, True: 2}
_OUTCOME_BONUS = {False: 2e-9, None: 1e-9, True: 0.0}
_SCAN = 32


def _take_best(queue: deque[int] | None, args: Any, actual: Sequence[ToolCall]) -> int | None:
    """The earliest identical call, preferring one that succeeded over a failed retry."""
    if not queue:
        return None
    best_pos = None
    best_rank = 3
    for pos, j in enumerate(queue):
        if pos >= _SCAN:
            break
        rank = _OUTCOME_RANK[actual[j].is_error]
        if rank < best_rank and values_match(args, actual[j].args):
            best_pos, best_rank = pos, rank
            if rank == 0:
                break
    if best_pos is None:
        return None
    j = queue[best_pos]
    del queue[best_pos]
    return j


def _assign(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int], pairs: list[Pair],
) -> None:
    scores = [[pair_score(expected[i], actual[j]) for j in block_a] for i in block_e]
    # A successful call is preferred over a failed one of equal argument score.
    bonus = [_OUTCOME_BONUS[actual[j].is_error] for j in block_a]
    weights = [[s + b for (s, _), b in zip(row, bonus, strict=True)] for row in scores]
    if len(block_e) == 1 or len(block_a) == 1:
        best = max(
            ((r, c) for r in range(len(block_e)) for c in range(len(block_a))),
            key=lambda rc: (weights[rc[0]][rc[1]], -rc[0], -rc[1]),
        )
        chosen = [best]
    elif len(block_e) <= _SMALL and len(block_a) <= _SMALL:
        chosen = _hungarian(weights)
    else:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(weights, maximize=True)
        chosen = list(zip(rows.tolist(), cols.tolist(), strict=True))
    for r, c in chosen:
        score, matched = scores[r][c]
        pairs.append(Pair(expected=block_e[r], actual=block_a[c], matched_args=matched,
                          score=score, args_checked=expected[block_e[r]].args is not None))


def _hungarian(weights: list[list[float]]) -> list[tuple[int, int]]:
    """Maximum-weight assignment of min(rows, cols) pairs (potentials, O(n^2 m))."""
    transpose = len(weights) > len(weights[0])
    if transpose:
        weights = [list(col) for col in zip(*weights, strict=True)]
    n, m = len(weights), len(weights[0])
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = -weights[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    result = [(p[j] - 1, j - 1) for j in range(1, m + 1) if p[j] != 0]
    if transpose:
        result = [(c, r) for r, c in result]
    return sorted(result)
