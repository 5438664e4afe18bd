"""Optimal one-to-one pairing of expected calls with actual calls of the same tool.

Every metric that compares arguments, and every check that asks "was this expected call
made", uses this one pairing. Its objective, in order of priority:

1. as many pairs as possible (every expected call gets a call of its tool while any is
   left);
2. identical calls are never split up: an expected call with literal arguments is paired
   with an actual call with exactly those arguments wherever one exists (a failed attempt
   gives way to an identical call that succeeded);
3. the other calls of each tool are paired to maximise the total per-pair argument F1, an
   assignment problem (SciPy's ``linear_sum_assignment``).

Identical calls are found by walking both lists in order (agents mostly follow the
contract's order) and then by hashing what is left. Leftover blocks larger than
``WINDOW`` calls on both sides are solved in consecutive windows of that size, in trace
order, so the cost stays linear in the trace length.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from attrs import frozen

from toolscore_core.matchers import values_match
from toolscore_core.models import ExpectedCall, ToolCall

WINDOW = 64


class Pair(NamedTuple):
    """An expected call paired with the actual call that answers it (a tuple: made often)."""

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


_new_pair = tuple.__new__  # Pair's fields in order, without NamedTuple's Python-level __new__


@frozen
class Pairing:
    pairs: tuple[Pair, ...]
    """Pairs in the order of the expected calls."""
    unpaired_expected: tuple[int, ...]
    unpaired_actual: tuple[int, ...]


def _key(args: dict[str, Any]) -> frozenset[tuple[str, Any]] | None:
    """A hashable key shared by equal argument objects (None if a value is unhashable).

    Equal keys still need :func:`_same_types`: ``1``, ``1.0`` and ``true`` hash alike.
    """
    try:
        return frozenset(args.items())
    except TypeError:
        items = []
        for name, value in args.items():
            kind = type(value)
            if kind is dict or kind is list:
                try:
                    value = (kind, json.dumps(value, sort_keys=True, allow_nan=False))
                except (TypeError, ValueError):
                    return None
            items.append((name, value))
        try:
            return frozenset(items)
        except TypeError:
            return None


def _same_types(want: dict[str, Any], got: dict[str, Any]) -> bool:
    """With equal keys: whether every value also has the same type (true is not 1)."""
    for name, value in want.items():
        other = got[name]
        kind = type(value)
        if kind is not type(other):
            return False
        if (kind is dict or kind is list) and not values_match(value, other):
            return False
    return True


_PLAIN = frozenset((str, int, float, bool, type(None)))


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
        if name in act_args:
            got = act_args[name]
            if type(want) is type(got) and type(want) in _PLAIN:
                matched += want == got
            elif values_match(want, got):
                matched += 1
    return 2.0 * matched / (len(exp_args) + len(act_args)), matched


def pair_calls(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    """The optimal pairing (see the module docstring).

    An expected call pinned to a turn (``turn: 2``) pairs only with a call of that turn: the
    calls of each pinned turn are paired first, each turn on its own, then the expected
    calls without a turn with the calls left over.
    """
    if any(call.turn is not None for call in expected):
        return _pair_by_turn(expected, actual)
    return _pair_all(expected, actual)


def _pair_by_turn(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    pinned: dict[int, list[int]] = defaultdict(list)
    free: list[int] = []
    for i, call in enumerate(expected):
        (pinned[call.turn] if call.turn is not None else free).append(i)
    pairs: list[Pair] = []
    used: set[int] = set()
    groups = [(pinned[turn], [j for j, call in enumerate(actual) if call.turn == turn])
              for turn in sorted(pinned)]
    for group_exp, group_act in groups:
        _pair_subset(expected, actual, group_exp, group_act, pairs, used)
    _pair_subset(expected, actual, free, [j for j in range(len(actual)) if j not in used],
                 pairs, used)
    pairs.sort()
    paired = {pair.expected for pair in pairs}
    return Pairing(pairs=tuple(pairs),
                   unpaired_expected=tuple(i for i in range(len(expected)) if i not in paired),
                   unpaired_actual=tuple(j for j in range(len(actual)) if j not in used))


def _pair_subset(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall],
                 exp_index: list[int], act_index: list[int], pairs: list[Pair],
                 used: set[int]) -> None:
    """Pair some expected calls with some actual calls, in the indices of the whole lists."""
    if not exp_index or not act_index:
        return
    inner = _pair_all([expected[i] for i in exp_index], [actual[j] for j in act_index])
    for pair in inner.pairs:
        j = act_index[pair.actual]
        used.add(j)
        pairs.append(pair._replace(expected=exp_index[pair.expected], actual=j))


def _pair_all(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    pairs: list[Pair] = []
    used = bytearray(len(actual))
    done = bytearray(len(expected))
    _pair_in_order(expected, actual, pairs, done, used)
    left_exp = _pair_identical(expected, actual, pairs, done, used)
    by_tool_exp: dict[str, list[int]] = defaultdict(list)
    by_tool_act: dict[str, list[int]] = defaultdict(list)
    for i in left_exp:
        by_tool_exp[expected[i].tool].append(i)
    for j in _zeros(used):
        by_tool_act[actual[j].tool].append(j)
    assigned = len(pairs)
    for tool, block_exp in by_tool_exp.items():
        block_act = by_tool_act.get(tool)
        if not block_act:
            continue
        for start in range(0, max(len(block_exp), len(block_act)), WINDOW):
            block_e = block_exp[start:start + WINDOW]
            block_a = block_act[start:start + WINDOW]
            if block_e and block_a:
                _assign(expected, actual, block_e, block_a, pairs)
    for pair in pairs[assigned:]:
        done[pair[0]] = used[pair[1]] = 1
    pairs.sort()
    return Pairing(pairs=tuple(pairs), unpaired_expected=_zeros(done),
                   unpaired_actual=_zeros(used))


def _zeros(flags: bytearray) -> tuple[int, ...]:
    """The positions of the zero bytes (few, in a long array: found by C searches)."""
    out = []
    at = flags.find(0)
    while at != -1:
        out.append(at)
        at = flags.find(0, at + 1)
    return tuple(out)


_LOOKAHEAD = 4


def _pair_in_order(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], pairs: list[Pair],
    done: bytearray, used: bytearray,
) -> None:
    """Pair identical calls met walking both lists in order, re-syncing past small gaps.

    The walk reads columns of the records (made in C passes): it is the one loop that
    visits every call.
    """
    n, m = len(expected), len(actual)
    e_tools = list(map(_TOOL, expected))
    e_args = list(map(_ARGS, expected))
    a_tools = list(map(_TOOL, actual))
    a_args = list(map(_ARGS, actual))
    failed = list(map(_IS_ERROR, actual))
    i = j = 0
    append = pairs.append
    while i < n and j < m:
        want = e_args[i]
        tool = e_tools[i]
        if want is not None and tool == a_tools[j]:
            got = a_args[j]
            if want == got and _same_types(want, got):
                if not failed[j]:
                    done[i] = used[j] = 1
                    append(_new_pair(Pair, (i, j, len(want), 1.0, True)))
                # a failure is passed over: the hash pass looks for a successful retry
                i += 1
                j += 1
                continue
        made_tool = a_tools[j]
        got = a_args[j]
        for step in range(1, _LOOKAHEAD + 1):
            if (j + step < m and a_tools[j + step] == tool
                    and _identical_args(want, a_args[j + step])):
                j += step  # extra calls were made before this one
                break
            if (i + step < n and e_tools[i + step] == made_tool
                    and _identical_args(e_args[i + step], got)):
                i += step  # expected calls were skipped
                break
        else:
            i += 1
            j += 1


_TOOL = attrgetter("tool")
_ARGS = attrgetter("args")
_IS_ERROR = attrgetter("is_error")


def _identical_args(want: dict[str, Any] | None, got: dict[str, Any] | None) -> bool:
    """Strictly equal literal arguments (a matcher never equals a value), tools aside."""
    return want is not None and got is not None and want == got and _same_types(want, got)


def _pair_identical(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], pairs: list[Pair],
    done: bytearray, used: bytearray,
) -> list[int]:
    """Pair what is left of identical calls by hashing their arguments.

    Marks the paired actual calls in ``used``; returns the expected calls left over.
    """
    # key -> the one actual call with it, or a queue when several share it
    index: dict[tuple[str, frozenset[tuple[str, Any]]], int | deque[int]] = {}
    for j in _zeros(used):
        call = actual[j]
        if call.args is None:
            continue
        key = _key(call.args)
        if key is None:
            continue
        slot = (call.tool, key)
        held = index.get(slot)
        if held is None:
            index[slot] = j
        elif type(held) is int:
            index[slot] = deque((held, j))
        else:
            held.append(j)  # type: ignore[union-attr]
    left_exp: list[int] = []
    for i in _zeros(done):
        wanted = expected[i]
        args = wanted.args
        key = None if args is None else _key(args)
        held = None if key is None else index.get((wanted.tool, key))
        if held is None or args is None:
            left_exp.append(i)
            continue
        if isinstance(held, int):
            found: int | None = held
            del index[wanted.tool, key]  # type: ignore[arg-type]
        else:
            found = _take_best(held, actual)
        if found is None:
            left_exp.append(i)
            continue
        if not _same_types(args, actual[found].args):  # type: ignore[arg-type]
            left_exp.append(i)
            continue
        used[found] = done[i] = 1
        pairs.append(_new_pair(Pair, (i, found, len(args), 1.0, True)))
    return left_exp


_OUTCOME_RANK = {False: 0, None: 1, True: 2}
_OUTCOME_BONUS = {False: 2e-9, None: 1e-9, True: 0.0}
_SCAN = 32


def _take_best(queue: deque[int] | None, actual: Sequence[ToolCall]) -> int | None:
    """The earliest identical call, preferring one that succeeded over a failed retry."""
    if not queue:
        return None
    if actual[queue[0]].is_error is False:
        return queue.popleft()
    best_pos = 0
    best_rank = 3
    for pos, j in enumerate(queue):
        if pos >= _SCAN:
            break
        rank = _OUTCOME_RANK[actual[j].is_error]
        if rank < best_rank:
            best_pos, best_rank = pos, rank
            if rank == 0:
                break
    j = queue[best_pos]
    del queue[best_pos]
    return j


def _value_key(name: str, value: Any) -> tuple[str, str, Any] | None:
    """An index key under which strictly matching plain values meet (1 meets 1.0, not true)."""
    kind = type(value)
    if kind is bool:
        return (name, "bool", value)
    if kind is int or kind is float:
        return (name, "number", value)
    if kind is str:
        return (name, "str", value)
    if value is None:
        return (name, "null", None)
    return None


def _block_scores(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int],
) -> tuple[list[list[float]], list[list[int]]]:
    """Per-pair argument F1 and matched counts for a block, via an index of actual values."""
    n_cols = len(block_a)
    index: dict[tuple[str, str, Any], list[int]] = defaultdict(list)
    sizes: list[int] = []
    for c, j in enumerate(block_a):
        args = actual[j].args or {}
        sizes.append(len(args))
        for name, value in args.items():
            key = _value_key(name, value)
            if key is not None:
                index[key].append(c)
    scores: list[list[float]] = []
    matched: list[list[int]] = []
    for i in block_e:
        want = expected[i].args
        if want is None:
            scores.append([1.0] * n_cols)
            matched.append([0] * n_cols)
            continue
        counts = [0] * n_cols
        for name, value in want.items():
            key = _value_key(name, value)
            if key is not None:
                for c in index.get(key, ()):
                    counts[c] += 1
                continue
            # a matcher or a nested value: asked of each call holding the argument, as
            # pair_score asks it
            for c, j in enumerate(block_a):
                held = actual[j].args
                if held and name in held and values_match(value, held[name]):
                    counts[c] += 1
        size = len(want)
        scores.append([2.0 * m / (size + sizes[c]) if size + sizes[c] else 1.0
                       for c, m in enumerate(counts)])
        matched.append(counts)
    return scores, matched


def _assign(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int], pairs: list[Pair],
) -> None:
    if len(block_e) == 1 and len(block_a) == 1:  # a single pair: no index to build
        i, j = block_e[0], block_a[0]
        score, count = pair_score(expected[i], actual[j])
        pairs.append(_new_pair(Pair, (i, j, count, score, expected[i].args is not None)))
        return
    scores, matched = _block_scores(expected, actual, block_e, block_a)
    # A successful call is preferred over a failed one of equal argument score.
    bonus = [_OUTCOME_BONUS[actual[j].is_error] for j in block_a]
    weights = [[s + b for s, b in zip(row, bonus, strict=True)] for row in scores]
    if len(block_e) == 1 or len(block_a) == 1:
        # one row or one column is no assignment problem, just the best cell (the first
        # of equals); SciPy would cost a third of a second to import for it
        best = max(
            ((r, c) for r in range(len(block_e)) for c in range(len(block_a))),
            key=lambda rc: (weights[rc[0]][rc[1]], -rc[0], -rc[1]),
        )
        chosen = [best]
    else:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(weights, maximize=True)
        chosen = list(zip(rows.tolist(), cols.tolist(), strict=True))
    for r, c in chosen:
        pairs.append(_new_pair(Pair, (block_e[r], block_a[c], matched[r][c], scores[r][c],
                                      expected[block_e[r]].args is not None)))
