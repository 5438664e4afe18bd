"""Reading JSON and YAML input files, with errors that name the file and the line."""

from __future__ import annotations

import json
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


_UNIQUE_KEYS_DECODER = json.JSONDecoder(parse_constant=_refuse_constant,
                                        object_pairs_hook=_unique_pairs)


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
        raise InputError(f"{exc} is not a JSON number", file=file,
                         place=_place(data, _CONSTANT), fix="write null, or the number as a "
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
_CONSTANT = re.compile(_STRING + r"|(-?Infinity|NaN)")
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
    ``unique_keys``, a key named twice in one mapping is one too."""
    refuse_empty(data, file=file)
    import yaml

    try:
        if unique_keys:
            document = yaml.load(data, Loader=_unique_keys_loader())  # a SafeLoader
        else:
            document = yaml.safe_load(data)
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


class _YamlDuplicateKey(Exception):
    """(key, mark) of a key a mapping names twice."""


@cache
def _unique_keys_loader() -> Any:
    """yaml's SafeLoader, refusing a mapping that names a key twice (made once, on use)."""
    import yaml

    class UniqueKeysLoader(yaml.SafeLoader):
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
    data = read_bytes(path, what=what)
    name = str(path)
    if name.lower().endswith(YAML_SUFFIXES):
        return parse_yaml(data, file=name, unique_keys=True)
    return parse_json(data, file=name, unique_keys=True)


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
