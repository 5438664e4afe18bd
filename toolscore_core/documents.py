"""Reading JSON and YAML input files, with errors that name the file and the line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolscore_core.errors import InputError

YAML_SUFFIXES = (".yaml", ".yml")


def read_bytes(path: str | os.PathLike[str], *, what: str = "file") -> bytes:
    """The bytes of ``path``, or an InputError naming it."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} not found", file=str(path), fix="check the path") from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory", file=str(path), fix="give a file") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} ({exc.strerror})", file=str(path)) from None


def parse_json(data: bytes | str, *, file: str) -> Any:
    """Decode JSON, or raise an InputError naming the line and column."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON ({exc.msg})", file=file, place=f"line {exc.lineno} column {exc.colno}",
            fix="fix the JSON syntax",
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=file,
                         place=f"byte {exc.start}", fix="save the file as UTF-8") from None


def parse_yaml(data: bytes | str, *, file: str) -> Any:
    """Decode YAML (safe loader), or raise an InputError naming the line."""
    import yaml

    try:
        return yaml.safe_load(data)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"line {mark.line + 1} column {mark.column + 1}" if mark else None
        raise InputError(f"invalid YAML ({exc.problem})", file=file, place=place,
                         fix="fix the YAML syntax") from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML ({exc})", file=file, fix="fix the YAML syntax") from None


def load_document(path: str | os.PathLike[str], *, what: str = "file") -> Any:
    """Read a JSON or YAML file (YAML by suffix ``.yaml``/``.yml``, else JSON)."""
    data = read_bytes(path, what=what)
    name = str(path)
    if name.lower().endswith(YAML_SUFFIXES):
        return parse_yaml(data, file=name)
    return parse_json(data, file=name)


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


def refuse_unknown(item: Mapping[str, Any], allowed: Iterable[str], *, path: str,
                   file: str | None = None) -> None:
    """Raise an InputError naming the first key of ``item`` not in ``allowed``."""
    allowed = tuple(allowed)
    for key in item:
        if key not in allowed:
            raise InputError(f"unknown key {key!r}", file=file, place=f"{path}.{key}",
                             fix=f"use only {', '.join(allowed)}")
