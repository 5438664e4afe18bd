"""Reading JSON and YAML input files, with errors that name the file and the line."""

from __future__ import annotations

import json
import math
import os
import re
from functools import cache
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.inputs import read_input

YAML_SUFFIXES = (".yaml", ".yml")


class NotJSONNumber(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: numbers of JavaScript that JSON does not have."""


def _refuse_constant(name: str) -> Any:
    raise NotJSONNumber(name)


STRICT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
"""``json``'s decoder (the same C scanner), refusing NaN and the infinities."""

JSON_FAILURES = (ValueError, RecursionError)
"""What :func:`loads` raises on text that is not JSON it can read: invalid syntax
(``json.JSONDecodeError``), NaN or an infinity (:class:`NotJSONNumber`), bytes that are not
UTF-8, an integer of more than 4,300 digits, values nested about 1,000 levels deep."""


class DuplicateKey(ValueError):
    """An object names the same key twice (``json`` would keep the last one silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return result


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):  # 1e999: a number no float holds, read as an infinity
        raise NotJSONNumber(text)
    return number


_UNIQUE_KEYS_DECODER = json.JSONDecoder(parse_constant=_refuse_constant,
                                        parse_float=_finite_float,
                                        object_pairs_hook=_unique_pairs)
"""The decoder of files people write (contracts, specs, rules): small, so a number too
large for a float is worth a look at each float (a trace's decoder does not pay for it: its
records write such a value as null, with a note)."""


def loads(data: bytes | bytearray | str, *, unique_keys: bool = False,
          decoder: json.JSONDecoder | None = None) -> Any:
    """``json.loads``, except that NaN, Infinity and -Infinity are refused (not JSON), and
    with ``unique_keys`` an object that names a key twice (:class:`DuplicateKey`). A
    ``decoder`` given (see :func:`nulls_for_non_finite`) decides instead."""
    if isinstance(data, bytes | bytearray):
        data = data.decode(json.detect_encoding(data), "surrogatepass")
    elif data.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
    if decoder is None:
        decoder = _UNIQUE_KEYS_DECODER if unique_keys else STRICT_DECODER
    return decoder.decode(data)


def nulls_for_non_finite() -> tuple[json.JSONDecoder, list[str]]:
    """A decoder that reads NaN, Infinity and -Infinity as null, and the list it adds each
    one it met to (for a note: a program's output, not a document a person wrote)."""
    met: list[str] = []

    def as_null(name: str) -> None:
        met.append(name)

    return json.JSONDecoder(parse_constant=as_null), met


def read_bytes(path: str | os.PathLike[str], *, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, or an InputError naming it
    (``toolscore_core.inputs.read_input``)."""
    return read_input(path, what=what)


def refuse_empty(data: bytes | str, *, file: str) -> None:
    """An empty file (or only whitespace) is one clear error, not a JSON error at line 1."""
    if not data.strip():
        raise InputError("the file is empty", file=file,
                         fix="check the path, or that whatever writes it has finished")


def parse_json(data: bytes | str, *, file: str, unique_keys: bool = False) -> Any:
    """Decode JSON, or raise an InputError naming the line and column. With ``unique_keys``
    (contracts, specs, rules: files people write) a key named twice in one object is one."""
    refuse_empty(data, file=file)
    try:
        return loads(data, unique_keys=unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON ({exc.msg})", file=file, place=f"line {exc.lineno} column {exc.colno}",
            fix="fix the JSON syntax",
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=file,
                         place=f"byte {exc.start}", fix="save the file as UTF-8") from None
    except DuplicateKey as exc:
        raise InputError(f"the key {exc.key!r} is given twice in one object", file=file,
                         place=_duplicate_place(data, exc.key),
                         fix="keep one of them (JSON readers silently keep the last)") from None
    except NotJSONNumber as exc:
        literal = re.compile(_STRING + "|(" + re.escape(str(exc)) + ")")
        raise InputError(f"{exc} is not a JSON number", file=file,
                         place=_place(data, literal), fix="write null, or the number as a "
                         "string") from None
    except RecursionError:
        depth, place = _deepest(data)
        raise InputError(f"values nested {depth:,} levels deep, more than Python's JSON reader "
                         "takes", file=file, place=place, fix="flatten the document") from None
    except ValueError as exc:  # an integer too long for Python to read
        if "digits" not in str(exc):
            raise
        raise InputError("a number of more than 4,300 digits (more than Python reads)",
                         file=file, place=_place(data, _LONG_NUMBER),
                         fix="write the number as a string") from None


# A JSON string (skipped: group 1 is None), or what the error is about, outside strings.
_STRING = r'"(?:[^"\\]|\\.)*"'
_LONG_NUMBER = re.compile(_STRING + r"|(-?[0-9]{4301,})")
_BRACKET = re.compile(_STRING + r"|([\[\]{}])")


def _text(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return data.decode(json.detect_encoding(data), "replace")


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _place(data: bytes | str, pattern: re.Pattern[str]) -> str | None:
    """The line and column of the first match of ``pattern``'s group outside strings."""
    text = _text(data)
    for match in pattern.finditer(text):
        if match.group(1):
            return _line_column(text, match.start(1))
    return None


_COLON = re.compile(r"\s*:")


def _duplicate_place(data: bytes | str, key: str) -> str | None:
    """Where ``key`` is named a second time in one object."""
    text = _text(data)
    objects: list[set[str] | None] = []  # per open bracket: the keys seen (None: a list)
    for match in _BRACKET.finditer(text):
        bracket = match.group(1)
        if bracket in ("{", "["):
            objects.append(set() if bracket == "{" else None)
        elif bracket:
            if objects:
                objects.pop()
        elif objects and objects[-1] is not None and _COLON.match(text, match.end()):
            name = json.loads(match.group(0))
            if name == key and name in objects[-1]:
                return _line_column(text, match.start())
            objects[-1].add(name)
    return None


def _deepest(data: bytes | str) -> tuple[int, str | None]:
    """How deep the document's values nest, and where that depth is first reached."""
    text = _text(data)
    depth = deepest = 0
    at = None
    for match in _BRACKET.finditer(text):
        bracket = match.group(1)
        if not bracket:
            continue
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, match.start(1)
        else:
            depth -= 1
    return deepest, None if at is None else _line_column(text, at)


def parse_yaml(data: bytes | str, *, file: str, unique_keys: bool = False) -> Any:
    """Decode YAML (safe loader), or raise an InputError naming the line. With
    ``unique_keys``, a key named twice in one mapping is one too. Aliases may add at most
    ALIAS_LIMIT values, brackets nest at most BRACKETS_LIMIT deep; an alias inside the
    value it names is an error."""
    refuse_empty(data, file=file)
    import yaml

    try:
        document = yaml.load(data, Loader=_loader(unique_keys))  # a SafeLoader
    except _RecursiveAlias as exc:
        raise InputError(f"the alias *{exc.args[0]} refers to the value it stands in",
                         file=file, place=_mark(exc.args[1]),
                         fix=f"write the value out instead of *{exc.args[0]}") from None
    except _TooDeep as exc:
        raise InputError(f"brackets nested more than {BRACKETS_LIMIT} levels deep", file=file,
                         place=_mark(exc.args[0]), fix="flatten the document") from None
    except _AliasesExpand as exc:
        raise InputError(f"aliases expand the document by {exc.args[0]:,} values, more than "
                         f"the {ALIAS_LIMIT:,} aliases may add", file=file,
                         fix="write the repeated parts out, or use fewer aliases of aliases"
                         ) from None
    except _YamlDuplicateKey as exc:
        mark = exc.args[1]
        raise InputError(f"the key {exc.args[0]!r} is given twice in one mapping", file=file,
                         place=f"line {mark.line + 1} column {mark.column + 1}",
                         fix="keep one of them (YAML readers silently keep the last)") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"line {mark.line + 1} column {mark.column + 1}" if mark else None
        raise InputError(f"invalid YAML ({exc.problem})", file=file, place=place,
                         fix="fix the YAML syntax") from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML ({exc})", file=file, fix="fix the YAML syntax") from None
    except RecursionError:
        raise InputError("values nested too deeply for the YAML reader", file=file,
                         fix="flatten the document") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise InputError(f"a value the YAML reader cannot take ({exc})", file=file,
                         fix="write the number as a string") from None
    place = _not_finite(document, "$")
    if place is not None:
        raise InputError("NaN and the infinities (.nan, .inf) are not JSON numbers", file=file,
                         place=place, fix="write null, or the number as a string")
    return document


ALIAS_LIMIT = 100_000
"""How many values YAML aliases may add to a document, counting each alias as the values it
stands for. Shared references cost nothing to load, but everything that reads the document
afterwards (matchers, hashing, records) sees every copy: ten levels of ten aliases of the
level below (a "billion laughs" document of under 1 KB) stand for 10**10 values."""


BRACKETS_LIMIT = 300
"""How deep YAML's brackets (``[`` and ``{``) may nest. The YAML reader's scanner looks at
every open bracket for each one it reads (quadratic: 4,000 levels of a 10 KB document took
seconds), and its composer runs out of Python's stack a little deeper than this anyway."""


class _TooDeep(Exception):
    """(mark) of a bracket past BRACKETS_LIMIT."""


class _YamlDuplicateKey(Exception):
    """(key, mark) of a key a mapping names twice."""


class _RecursiveAlias(Exception):
    """(anchor, mark) of an alias inside the value its anchor names."""


class _AliasesExpand(Exception):
    """(values added) when aliases add more than ALIAS_LIMIT values."""


def _mark(mark: Any) -> str:
    return f"line {mark.line + 1} column {mark.column + 1}"


def alias_expansion(root: Any) -> tuple[int, int]:
    """(nodes written, nodes once every alias is replaced by what it stands for) of a
    composed YAML document, in one pass over the nodes written (sizes shared by aliases are
    computed once). The graph has no cycle (the composer refuses recursive aliases)."""
    size: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in size:
            continue
        kind = node.id  # "scalar", "sequence" or "mapping" (of key and value pairs)
        children = (() if kind == "scalar" else node.value if kind == "sequence"
                    else [part for pair in node.value for part in pair])
        if children_done:
            size[key] = 1 + sum(size[id(child)] for child in children)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in size)
    return len(size), size[id(root)]


@cache
def _loader(unique_keys: bool) -> Any:
    """yaml's SafeLoader with aliases bounded (ALIAS_LIMIT, no alias inside its own anchor),
    brackets nested at most BRACKETS_LIMIT deep and, with ``unique_keys``, a mapping that
    names a key twice refused (made once, on use)."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        def compose_document(self) -> Any:
            self.open_anchors: set[str] = set()
            node = super().compose_document()
            written, expanded = alias_expansion(node)
            if expanded - written > ALIAS_LIMIT:
                raise _AliasesExpand(expanded - written)
            return node

        def fetch_flow_collection_start(self, token_class: Any) -> None:
            if self.flow_level >= BRACKETS_LIMIT:
                raise _TooDeep(self.get_mark())
            super().fetch_flow_collection_start(token_class)

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            anchor = event.anchor
            if isinstance(event, yaml.AliasEvent):
                if anchor in self.open_anchors:
                    raise _RecursiveAlias(anchor, event.start_mark)
                return super().compose_node(parent, index)
            if anchor is None or anchor in self.open_anchors:
                return super().compose_node(parent, index)
            self.open_anchors.add(anchor)
            try:
                return super().compose_node(parent, index)
            finally:
                self.open_anchors.discard(anchor)

    if not unique_keys:
        return BoundedLoader

    class UniqueKeysLoader(BoundedLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=deep)
                    try:
                        if key in seen:
                            raise _YamlDuplicateKey(key, key_node.start_mark)
                        seen.add(key)
                    except TypeError:  # an unhashable key: the loader reports it
                        pass
            return super().construct_mapping(node, deep=deep)

    return UniqueKeysLoader


def _not_finite(value: Any, path: str) -> str | None:
    """The JSON path of the first NaN or infinity in a YAML document, if any."""
    kind = type(value)
    if kind is float:
        return None if value - value == 0.0 else path
    if kind is dict:
        for key, item in value.items():
            if type(item) in _NESTED:
                found = _not_finite(item, f"{path}.{key}")
                if found is not None:
                    return found
    elif kind is list:
        for index, item in enumerate(value):
            if type(item) in _NESTED:
                found = _not_finite(item, f"{path}[{index}]")
                if found is not None:
                    return found
    return None


_NESTED = frozenset((float, dict, list))


def load_document(path: str | os.PathLike[str], *, what: str = "file") -> Any:
    """Read a JSON or YAML file people write (YAML by suffix ``.yaml``/``.yml``, else JSON):
    a contract, rules, a config. A key named twice in one object is an error."""
    return parse_document(read_bytes(path, what=what), file=str(path))


def parse_document(data: bytes, *, file: str) -> Any:
    """:func:`load_document`'s reading of the bytes of the file named ``file``."""
    if file.lower().endswith(YAML_SUFFIXES):
        return parse_yaml(data, file=file, unique_keys=True)
    return parse_json(data, file=file, unique_keys=True)


def type_name(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
