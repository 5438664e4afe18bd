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

A block of one expected call or one actual call is just its best pair. A small block (up
to 16 candidate pairs) whose full pairs (F1 1.0) are one per call of its smaller side, no
two sharing a call of the other, is paired with them: that matching is the assignment's
unique optimum, in this pairing and in :func:`pair_exact_first`'s (any other loses a full
pair, far more than a successful call's bonus, and has no exact pair the full ones lack),
so it is what the solver gives, without NumPy or SciPy.

Identical calls are found by walking both lists in order (agents mostly follow the
contract's order) and then by hashing what is left. Leftover blocks larger than
``WINDOW`` calls on both sides are solved in consecutive windows of that size, in trace
order, so the cost stays linear in the trace length.

A contract with a trajectory mode (``match``) is paired for its verdict instead
(:func:`pair_for`): first as many required expected calls answered by calls made with the
expected arguments as possible (:func:`arguments_differ` finds nothing), then as many such
exact pairs in all, then as many pairs, then the largest total F1.
The order-free modes solve that per tool as one assignment problem (in windows, as above);
the ordered modes (``strict``, ``in_order``) pair only in order, by dynamic programming over
the two sequences (time and memory in the product of their lengths).
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from itertools import accumulate, compress
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from attrs import frozen

from toolscore_core.matchers import Judged, Matcher, Optional, decide, values_match
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
    identical: bytes = b""
    """By expected call: 1 where its pair is of identical calls (literal arguments equal to
    the call's, found in order or by hash: an exact pair, its arguments holding no matcher),
    0 elsewhere; empty when the pairing does not tell (turns, trajectory modes)."""
    twinless: bytes = b""
    """By expected call: 1 where no pair of identical calls holds it and no call outside
    those pairs has arguments of its key (:func:`args_key`: equal values, ``1``, ``1.0``
    and ``true`` alike, as the hash pass looked them up), 0 elsewhere; empty when the
    pairing does not tell (turns, trajectory modes)."""


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
    """Per-pair argument F1 and matched argument count. An ``$optional`` argument the call
    leaves out counts on neither side (as if the contract did not name it). A call whose
    arguments did not decode or are not in the trace matches none (0.0)."""
    if expected.args is None:
        return 1.0, 0
    exp_args = expected.args
    act_args = actual.args
    if act_args is None:  # did not decode, or not in the trace: no argument is known to match
        return 0.0, 0
    if not exp_args and not act_args:
        return 1.0, 0
    matched = 0
    size = len(exp_args) + len(act_args)
    for name, want in exp_args.items():
        if name in act_args:
            got = act_args[name]
            if type(want) is type(got) and type(want) in _PLAIN:
                matched += want == got
            elif values_match(want, got):
                matched += 1
        elif type(want) is Optional:
            size -= 1  # an optional argument left out is as if the contract did not name it
    return (2.0 * matched / size if size else 1.0), matched


ARGUMENTS_UNKNOWN = "its arguments are not in the trace"
"""What :func:`arguments_differ` says of a call whose arguments the trace does not record
(:func:`arguments_unknown`)."""


def arguments_unknown(expected: ExpectedCall, actual: ToolCall) -> bool:
    """Whether the trace does not record the arguments of ``actual`` that ``expected``
    checks (``args`` and ``raw_args`` both null, as an export without message content
    leaves them): whether it is the expected call with its arguments is unknown, never
    no and never yes."""
    return expected.args is not None and actual.args is None and actual.raw_args is None


def arguments_differ(
    expected: ExpectedCall, actual: ToolCall, *, except_judged: bool = False
) -> str | None:
    """What keeps ``actual`` from being the expected call with its arguments (the first
    argument that differs, is missing or was not expected), or None when nothing does.
    The tools are not compared; omitted expected ``args`` accept any arguments. A
    ``$judge`` argument matches nothing by rule; ``except_judged`` passes over one the
    call gave (what the judge alone decides). A call whose arguments the trace does not
    record is not known to be the expected call: :data:`ARGUMENTS_UNKNOWN` (ask
    :func:`arguments_unknown` to tell it from a difference)."""
    want = expected.args
    if want is None:
        return None
    got = actual.args
    if got is None:
        if actual.raw_args is not None:
            return "the arguments did not decode"
        return ARGUMENTS_UNKNOWN
    for name, value in want.items():
        if name not in got:
            if type(value) is Optional:  # an optional argument may be left out
                continue
            return f"argument {name!r} is missing"
        other = got[name]
        kind = type(value)
        if kind is type(other) and kind in _PLAIN:  # decide's first answer, without the call
            if value == other:
                continue
            return f"argument {name!r} differs"
        if except_judged and kind is Judged:
            continue
        if decide(value, other) is not True:  # values_match, one call fewer
            return f"argument {name!r} differs"
    for name in got:
        if name not in want:
            return f"argument {name!r} was not expected"
    return None


def pair_for(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], match: str | None
) -> Pairing:
    """The pairing a contract's trajectory mode asks for (None: :func:`pair_calls`)."""
    if match is None:
        return pair_calls(expected, actual)
    if match in ("strict", "in_order"):
        return pair_in_order(expected, actual)
    return pair_exact_first(expected, actual)


def exact_pair(expected: ExpectedCall, actual: ToolCall, score: float) -> bool:
    """Whether a pair of the same tool with this F1 is the expected call with its arguments
    (what :func:`arguments_differ` says, from the F1: 1.0 is every expected argument matched
    and no other, unless the arguments did not decode or are not in the trace)."""
    return score == 1.0 and not (expected.args is not None and actual.args is None)


def pair_exact_first(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    """Pairs of the same tool, in any order: most required calls made exactly, then most
    exact calls, then most pairs, then the largest total F1 (a successful call before a
    failed one of equal score)."""
    pairs: list[Pair] = []
    _assign_by_tool(expected, actual, range(len(expected)), range(len(actual)), pairs,
                    exact_first=True)
    return _pairing(pairs, len(expected), len(actual))


def _assign_by_tool(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], exp_index: Iterable[int],
    act_index: Iterable[int], pairs: list[Pair], *, exact_first: bool = False,
) -> None:
    """Assign these expected calls to these actual calls tool by tool, in windows of
    ``WINDOW`` calls of a tool, appending the pairs found."""
    by_tool_exp: dict[str, list[int]] = defaultdict(list)
    by_tool_act: dict[str, list[int]] = defaultdict(list)
    for i in exp_index:
        by_tool_exp[expected[i].tool].append(i)
    for j in act_index:
        by_tool_act[actual[j].tool].append(j)
    for tool, block_exp in by_tool_exp.items():
        block_act = by_tool_act.get(tool)
        if not block_act:
            continue
        for start in range(0, max(len(block_exp), len(block_act)), WINDOW):
            block_e = block_exp[start:start + WINDOW]
            block_a = block_act[start:start + WINDOW]
            if block_e and block_a:
                _assign(expected, actual, block_e, block_a, pairs, exact_first=exact_first)


def pair_in_order(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    """Pairs of the same tool that keep both sequences' order: most required calls made
    exactly, then most exact calls, then most pairs, then the largest total F1, by dynamic
    programming over the two sequences."""
    n, m = len(expected), len(actual)
    columns: dict[str, list[int]] = defaultdict(list)
    for j, made in enumerate(actual, start=1):
        columns[made.tool].append(j)
    # calls with equal arguments score alike: each expected call scores each distinct
    # argument object (as JSON, where 1, 1.0 and true differ) once
    keys = [_json_key(made.args) for made in actual]
    # A pairing's worth as one integer, compared in C: exact pairs of required calls first,
    # then exact pairs, then pairs, then F1 (with the outcome bonus) in units of 1e-10.
    unit = 10 ** 10
    per_pair = (n + 1) * 2 * unit
    per_exact = (n + 1) * per_pair
    per_required = (n + 1) * per_exact
    # best[i][j]: the worth of the best pairing of expected[:i] with actual[:j]. A row is the
    # running maximum (itertools.accumulate, in C) of the row above, raised where a call of
    # the expected call's tool can answer it: only those cells cost Python.
    best = [[0] * (m + 1)]
    cells: dict[tuple[int, int], tuple[float, int]] = {}
    for i in range(1, n + 1):
        want = expected[i - 1]
        above = best[-1]
        row = above[:]
        scored: dict[Any, tuple[float, int]] = {}
        for j in columns.get(want.tool, ()):
            made = actual[j - 1]
            key = keys[j - 1]
            if key is None:
                score, count = pair_score(want, made)
            else:
                found = scored.get(key)
                if found is None:
                    found = scored[key] = pair_score(want, made)
                score, count = found
            cells[i - 1, j - 1] = (score, count)
            exact = exact_pair(want, made, score)
            value = (above[j - 1] + (per_exact + per_required * want.required) * exact
                     + per_pair
                     + round((score + _OUTCOME_BONUS[made.is_error]) * unit))
            if value > row[j]:
                row[j] = value
        best.append(list(accumulate(row, max)))
    pairs: list[Pair] = []
    i, j = n, m
    while i and j:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        elif best[i][j] == best[i][j - 1]:
            j -= 1
        else:
            score, count = cells[i - 1, j - 1]
            pairs.append(_new_pair(Pair, (i - 1, j - 1, count, score,
                                          expected[i - 1].args is not None)))
            i -= 1
            j -= 1
    return _pairing(pairs, n, m)


def args_key(args: dict[str, Any]) -> frozenset[tuple[str, Any]] | None:
    """A hashable key shared by argument objects of equal plain values (``1``, ``1.0`` and
    ``true`` share one: confirm with :func:`arguments_differ`; nested objects and lists
    are keyed by their JSON text); None when a value is not hashable as JSON."""
    return _key(args)


def has_matcher(value: Any) -> bool:
    """Whether a matcher stands anywhere in an expected value (arguments, a nested list)."""
    if type(value) in _PLAIN:  # most values: no isinstance against the abstract Matcher
        return False
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list | tuple):
        return isinstance(value, Matcher)
    # members all plain (most arguments): told by one C pass over their types
    return not _PLAIN.issuperset(map(type, value)) and any(map(has_matcher, value))


def _json_key(args: dict[str, Any] | None) -> str | None:
    if args is None:
        return None
    try:
        return json.dumps(args, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _pairing(pairs: list[Pair], n: int, m: int) -> Pairing:
    done, used = bytearray(n), bytearray(m)
    for pair in pairs:
        done[pair[0]] = used[pair[1]] = 1
    pairs.sort(key=_EXPECTED)  # one pair an expected call: as the tuples sort
    return Pairing(pairs=tuple(pairs), unpaired_expected=_zeros(done),
                   unpaired_actual=_zeros(used))


def pair_calls(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> Pairing:
    """The optimal pairing (see the module docstring).

    An expected call pinned to a turn (``turn: 2``) pairs only with a call of that turn: the
    calls of each pinned turn are paired first, each turn on its own, then the expected
    calls without a turn with the calls left over.
    """
    if list(map(_TURN, expected)).count(None) < len(expected):  # C passes
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
    pairs.sort(key=_EXPECTED)  # one pair an expected call: as the tuples sort
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
    twinless = bytearray(len(expected))
    left_exp = _pair_identical(expected, actual, pairs, done, used, twinless)
    identical = bytes(done)
    assigned = len(pairs)
    _assign_by_tool(expected, actual, left_exp, _zeros(used), pairs)
    for pair in pairs[assigned:]:
        done[pair[0]] = used[pair[1]] = 1
    pairs.sort(key=_EXPECTED)  # one pair an expected call: as the tuples sort
    return Pairing(pairs=tuple(pairs), unpaired_expected=_zeros(done),
                   unpaired_actual=_zeros(used), identical=identical,
                   twinless=bytes(twinless))


def _zeros(flags: bytearray) -> tuple[int, ...]:
    """The positions of the zero bytes of an array of zeros and ones (flipped to ones and
    picked out of the positions by C passes)."""
    return tuple(compress(range(len(flags)), flags.translate(_FLIP)))


_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")


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
_TURN = attrgetter("turn")
_EXPECTED = itemgetter(0)


def _identical_args(want: dict[str, Any] | None, got: dict[str, Any] | None) -> bool:
    """Strictly equal literal arguments (a matcher never equals a value), tools aside."""
    return want is not None and got is not None and want == got and _same_types(want, got)


def _pair_identical(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], pairs: list[Pair],
    done: bytearray, used: bytearray, twinless: bytearray,
) -> list[int]:
    """Pair what is left of identical calls by hashing their arguments.

    Marks the paired actual calls in ``used``; returns the expected calls left over, and
    marks in ``twinless`` those of them no call left unpaired shares a key with (a call
    taken for one and given back, its types not the same, is such a call).
    """
    left = _zeros(done)
    tools = {expected[i].tool for i in left}  # only their calls can be looked up
    # key -> the one actual call with it, or a queue when several share it
    index: dict[tuple[str, frozenset[tuple[str, Any]]], int | deque[int]] = {}
    for j in _zeros(used):
        call = actual[j]
        tool = call.tool
        args = call.args
        if args is None or tool not in tools:
            continue
        try:  # most arguments: plain values, their items the key
            key = frozenset(args.items())
        except TypeError:
            other = _key(args)
            if other is None:
                continue
            key = other
        slot = (tool, key)
        held = index.get(slot)
        if held is None:
            index[slot] = j
        elif type(held) is int:
            index[slot] = deque((held, j))
        else:
            held.append(j)  # type: ignore[union-attr]
    left_exp: list[int] = []
    given_back: set[tuple[str, frozenset[tuple[str, Any]]]] = set()
    for i in left:
        wanted = expected[i]
        args = wanted.args
        if args is None:
            left_exp.append(i)
            continue
        try:
            wanted_key: frozenset[tuple[str, Any]] | None = frozenset(args.items())
        except TypeError:
            wanted_key = _key(args)
        if wanted_key is None:
            left_exp.append(i)
            continue
        slot = (wanted.tool, wanted_key)
        held = index.get(slot)
        if held is None:
            left_exp.append(i)
            twinless[i] = slot not in given_back
            continue
        if isinstance(held, int):
            found: int | None = held
            del index[slot]
        else:
            found = _take_best(held, actual)
        if found is None:
            left_exp.append(i)
            twinless[i] = slot not in given_back
            continue
        if not _same_types(args, actual[found].args):  # type: ignore[arg-type]
            left_exp.append(i)
            given_back.add(slot)  # unpaired, out of the index: still a call of this key
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


_VALUE_KINDS: dict[type, str] = {bool: "bool", int: "number", float: "number", str: "str",
                                  type(None): "null"}
"""The plain values' kinds: an index key ``(name, kind, value)`` is where strictly matching
plain values meet (1 meets 1.0, not true)."""


def _block_scores(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int],
) -> tuple[Any, Any]:
    """Per-pair argument F1 and matched counts for a block, as two NumPy matrices (rows:
    ``block_e``, columns: ``block_a``), via an index of the actual calls' plain values.

    Python finds which argument of which row matches which column (a lookup per plain
    expected value, a question per call for a matcher or a nested value); NumPy counts
    them (``bincount`` of their cells) and divides, with the same floating-point
    operations as :func:`pair_score`."""
    import numpy as np

    kinds = _VALUE_KINDS
    index: dict[tuple[str, str, Any], list[int]] = {}
    held = [actual[j].args or {} for j in block_a]
    for c, args in enumerate(held):
        for name, value in args.items():
            kind = kinds.get(type(value))
            if kind is not None:
                cols = index.get((name, kind, value))
                if cols is None:
                    index[name, kind, value] = [c]
                else:
                    cols.append(c)
    m = len(held)
    hits: list[int] = []  # a matched argument: its row times m plus its column
    left_rows: list[int] = []  # an $optional argument a call leaves out: counts on no side
    left_cols: list[int] = []
    unchecked: list[int] = []  # rows that omit args: a full match with any call
    row_sizes: list[int] = []
    for r, i in enumerate(block_e):
        want = expected[i].args
        if want is None:
            unchecked.append(r)
            row_sizes.append(0)
            continue
        row_sizes.append(len(want))
        base = r * m
        for name, value in want.items():
            kind = kinds.get(type(value))
            if kind is not None:
                cols = index.get((name, kind, value))
                if cols is not None:
                    hits += map(base.__add__, cols)
                continue
            if type(value) is Optional:
                for c, args in enumerate(held):
                    if name not in args:
                        left_rows.append(r)
                        left_cols.append(c)
            # a matcher or a nested value: asked of each call holding the argument, as
            # pair_score asks it
            for c, args in enumerate(held):
                if name in args and values_match(value, args[name]):
                    hits.append(base + c)
    n = len(block_e)
    matched = np.bincount(np.array(hits, dtype=np.intp), minlength=n * m).reshape(n, m)
    sizes = np.add.outer(np.array(row_sizes, dtype=np.int64),
                         np.fromiter(map(len, held), dtype=np.int64, count=m))
    if left_rows:
        np.subtract.at(sizes, (left_rows, left_cols), 1)
    # nothing on either side is a full match
    scores = np.divide(2.0 * matched, sizes, out=np.ones(sizes.shape), where=sizes != 0)
    unread = [c for c, j in enumerate(block_a) if actual[j].args is None]
    if unread:  # arguments that did not decode or are not in the trace match none
        scores[:, unread] = 0.0
    if unchecked:
        scores[unchecked] = 1.0
        matched[unchecked] = 0
    return scores, matched


_EVIDENT_CELLS = 16
"""The largest block (rows times columns) :func:`_pair_evident` scores pair by pair."""
_NEAR_FULL = 1.0 - 1e-6
"""The most a pair's F1 short of 1.0 may be for :func:`_pair_evident` to answer: below 1.0
by far more than the outcome bonuses and a solver's rounding. (An F1 short of 1.0 is
``2k / s`` with ``2k < s``, ``s`` the pair's arguments: at most ``1 - 1 / s``.)"""


def _pair_evident(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int], pairs: list[Pair],
) -> bool:
    """Pair a block whose full cells (F1 1.0) are one per call of its smaller side, in
    distinct calls of the other, with those cells; False (nothing paired) for any other.

    Such a matching is the unique optimum in both modes, so what the solver returns: any
    other matching of as many pairs (the solver pairs every call of the smaller side) gives
    up a full pair for one of F1 at most ``_NEAR_FULL``, a loss the outcome bonuses (2e-9 a
    pair) cannot make up, and has no exact pair this one lacks (an exact pair is a full
    one). An expected call that omits ``args`` is full with every call, so never alone in
    its row. Stops at the first row that rules the block out."""
    spare = len(block_e) - len(block_a)  # rows that may go without a full cell
    taken: set[int] = set()
    found: list[Pair] = []
    for i in block_e:
        want = expected[i]
        hit: Pair | None = None
        for j in block_a:
            score, count = pair_score(want, actual[j])
            if score == 1.0:
                if hit is not None or j in taken:
                    return False
                hit = _new_pair(Pair, (i, j, count, score, want.args is not None))
            elif score > _NEAR_FULL:
                return False
        if hit is None:
            spare -= 1
            if spare < 0:
                return False
        else:
            taken.add(hit[1])
            found.append(hit)
    pairs += found
    return True


def _assign(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int], pairs: list[Pair], *, exact_first: bool = False,
) -> None:
    if len(block_e) == 1 or len(block_a) == 1:
        # one row or one column is no assignment problem, just the best cell (the first
        # of equals), scored pair by pair; NumPy and SciPy would cost a third of a second to
        # import for it
        lead = min(len(block_e), len(block_a)) + 1.0
        best: tuple[float, int, int, float, int] | None = None
        for i in block_e:
            for j in block_a:
                score, count = pair_score(expected[i], actual[j])
                weight = score + _OUTCOME_BONUS[actual[j].is_error]
                if exact_first and exact_pair(expected[i], actual[j], score):
                    weight += lead * (lead + 1.0 if expected[i].required else 1.0)
                if best is None or weight > best[0]:
                    best = (weight, i, j, score, count)
        assert best is not None
        _, i, j, score, count = best
        pairs.append(_new_pair(Pair, (i, j, count, score, expected[i].args is not None)))
        return
    if len(block_e) * len(block_a) > _EVIDENT_CELLS or not _pair_evident(
            expected, actual, block_e, block_a, pairs):
        _solve(expected, actual, block_e, block_a, pairs, exact_first=exact_first)


def _solve(
    expected: Sequence[ExpectedCall], actual: Sequence[ToolCall], block_e: list[int],
    block_a: list[int], pairs: list[Pair], *, exact_first: bool,
) -> None:
    """Pair a block by SciPy's ``linear_sum_assignment`` over its F1 matrix (with the
    outcome bonus, and in ``exact_first`` the exact pairs' lead)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    scores, matched = _block_scores(expected, actual, block_e, block_a)
    # A successful call is preferred over a failed one of equal argument score.
    weights = scores + np.array([_OUTCOME_BONUS[actual[j].is_error] for j in block_a])
    if exact_first:
        # an exact pair outweighs any F1 the others of the block can add up to, and an
        # exact pair of a required call any number of other exact pairs (exact_pair: a
        # full F1, unless the call's arguments did not decode where some were expected)
        lead = min(len(block_e), len(block_a)) + 1.0
        checked = np.array([expected[i].args is not None for i in block_e])
        undecoded = np.array([actual[j].args is None and actual[j].raw_args is not None
                              for j in block_a])
        exact = (scores == 1.0) & ~np.logical_and.outer(checked, undecoded)
        extra = np.array([lead * (lead + 1.0 if expected[i].required else 1.0)
                          for i in block_e])
        weights = np.where(exact, weights + extra[:, None], weights)
    rows, cols = linear_sum_assignment(weights, maximize=True)
    scored, counted = scores[rows, cols].tolist(), matched[rows, cols].tolist()
    for r, c, score, count in zip(rows.tolist(), cols.tolist(), scored, counted, strict=True):
        pairs.append(_new_pair(Pair, (block_e[r], block_a[c], count, score,
                                      expected[block_e[r]].args is not None)))
