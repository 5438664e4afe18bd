"""Plugin options: the sections of ``--config``, the flags that fill them, checked against
what the plugins declare (``toolscore_register_settings``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from toolscore_core.documents import load_document, type_name
from toolscore_core.errors import InputError
from toolscore_core.models import Setting, Settings

PluginConfig = Mapping[str, Mapping[str, Any]]
"""Options as given, by plugin id (a check, metric or trace format id), then option name."""

def flag_of(keyword: str) -> str:
    """The CLI flag of a shorthand keyword (``acme_strict`` -> ``--acme-strict``); a
    ``..._path`` keyword, which names the file of a flag that reads one, drops the suffix
    first."""
    return "--" + keyword.removesuffix("_path").replace("_", "-")


def flags(declared: Mapping[str, Settings]) -> dict[str, list[tuple[str, Setting]]]:
    """Every shorthand flag the loaded plugins declare -> the ``(plugin id, option)`` it
    sets, in declaration order."""
    found: dict[str, list[tuple[str, Setting]]] = {}
    for section, settings in declared.items():
        for setting in settings.settings:
            if setting.flag is not None:
                found.setdefault(setting.flag, []).append((section, setting))
    return found


_TYPE_NAMES: dict[type, tuple[str, str]] = {
    bool: ("true or false", "true"), int: ("a whole number", "3"),
    float: ("a number", "0.5"), str: ("a string", '"text"'), list: ("a list", "[a, b]"),
    dict: ("an object", "{key: value}"),
}


def load_config(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Read a config file (YAML or JSON): an object with a section per plugin id."""
    return sections(load_document(path, what="config"), file=str(path))


def sections(doc: Any, *, file: str | None = None) -> dict[str, dict[str, Any]]:
    """A decoded config as plain dicts, refusing anything but an object of objects."""
    if not isinstance(doc, Mapping):
        raise InputError(f"the config is an object, not {type_name(doc)}", file=file,
                         place="$", fix="write a section per check, metric or format id, each "
                         "an object of options")
    found: dict[str, dict[str, Any]] = {}
    for section, options in doc.items():
        if not isinstance(options, Mapping):
            raise InputError(f"the section {section!r} is an object of options, not "
                             f"{type_name(options)}", file=file, place=f"$.{section}",
                             fix=f"write {section}: {{option: value}}")
        found[str(section)] = dict(options)
    return found


def check_config(
    config: PluginConfig, declared: Mapping[str, Settings], *, file: str | None = None
) -> None:
    """Raise InputError for a section no plugin declares, an unknown option, or a value
    its plugin refuses; the error names the file and the ``$.section.option`` path."""
    for section, options in config.items():
        settings = declared.get(section)
        if settings is None:
            known = ", ".join(sorted(declared)) or "none are loaded"
            raise InputError(f"unknown section {section!r}", file=file, place=f"$.{section}",
                             fix=f"sections are the ids of plugins with options: {known}")
        by_name = {s.name: s for s in settings.settings}
        for name, value in options.items():
            setting = by_name.get(name)
            if setting is None:
                raise InputError(f"unknown option {name!r} of {section}", file=file,
                                 place=f"$.{section}.{name}",
                                 fix=f"{section} takes {', '.join(by_name)}")
            check_value(setting, value, file=file, place=f"$.{section}.{name}")


def check_value(setting: Setting, value: Any, *, file: str | None, place: str) -> None:
    """A given value against its option's type and its plugin's ``validate`` (null: the
    default, always fine)."""
    if value is None:
        return
    if not _fits(value, setting.type):
        shown, example = _TYPE_NAMES[setting.type]
        raise InputError(f"{setting.name} must be {shown}, not {type_name(value)}", file=file,
                         place=place, fix=f"write {setting.name}: {example}")
    if setting.validate is not None:
        try:
            setting.validate(value)
        except InputError as exc:
            raise InputError(exc.problem, file=file, place=_within(place, exc.place),
                             fix=exc.fix) from None


def _fits(value: Any, kind: type) -> bool:
    if kind is object:
        return True
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):  # JSON's true is not a number
        return False
    if kind is float:
        return isinstance(value, int | float)
    if kind is dict:
        return isinstance(value, Mapping)
    return isinstance(value, kind)


def _within(place: str, inner: str | None) -> str:
    """``$.section.option`` joined with a path from inside the value (``$.extend``)."""
    if not inner or inner == "$":
        return place
    return place + inner[1:] if inner.startswith("$") else f"{place}: {inner}"


def require_flag(
    flag: str, declared: Mapping[str, Settings], disabled: Mapping[str, str]
) -> None:
    """Raise InputError when no loaded plugin declares ``flag``; ``disabled`` maps the flags
    of disabled plugins to the plugin's name, which the error then names."""
    if flag in flags(declared):
        return
    owner = disabled.get(flag)
    if owner is not None:
        raise InputError(f"{flag} sets an option of the plugin {owner!r}, which is disabled",
                         fix=f"drop {flag}, or remove {owner} from TOOLSCORE_DISABLE_PLUGINS")
    known = ", ".join(sorted(flags(declared))) or "none"
    raise InputError(f"no loaded plugin declares {flag}",
                     fix=f"drop it; the loaded plugins' flags are {known}")


def check_shorthand(
    keyword: str, value: Any, declared: Mapping[str, Settings], *, file: str | None = None
) -> None:
    """Validate a shorthand's value as the options it fills do (each validator once); the
    error names ``file`` with the place inside it, as the flag's file always did."""
    seen: list[Any] = []
    for _, setting in _targets(keyword, declared):
        if setting.validate is None or setting.validate in seen:
            continue
        seen.append(setting.validate)
        try:
            setting.validate(value)
        except InputError as exc:
            raise (exc if file is None else exc.at(file)) from None


def load_shorthand(
    keyword: str, path: str | os.PathLike[str], declared: Mapping[str, Settings]
) -> Any:
    """Read the file of a shorthand flag that reads one and validate it."""
    targets = _targets(keyword, declared)
    what = next((s.reads for _, s in targets if s.reads), flag_of(keyword)[2:].replace("-", " "))
    doc = load_document(path, what=what)
    check_shorthand(keyword, doc, declared, file=str(path))
    return doc


def config_with(
    config: PluginConfig | None, declared: Mapping[str, Settings],
    disabled: Mapping[str, str], shorthands: Mapping[str, Any],
) -> dict[str, dict[str, Any]]:
    """``config`` with the options its shorthand flags fill (``Registry.config_with``): a
    flag that reads a file given as ``keyword_path=PATH`` is read and checked naming the
    file, any other flag's value (True for a switch) is checked as its options check it."""
    given = {} if config is None else sections(config)
    values: dict[str, Any] = {}
    for keyword, value in shorthands.items():
        if value is None or value is False:
            continue
        flag = flag_of(keyword)
        require_flag(flag, declared, disabled)
        reads = next((s.reads for _, s in _targets(keyword, declared) if s.reads), None)
        name = keyword.removesuffix("_path")
        if keyword.endswith("_path") and reads is None:
            raise InputError(f"{flag} takes no file", place=f"{keyword}=",
                             fix=f"give {name}=True")
        if keyword.endswith("_path"):
            values[name] = load_shorthand(keyword, value, declared)
        else:
            check_shorthand(keyword, value, declared)
            values[name] = value
    return with_shorthands(given, declared, **values)


def overlay(base: PluginConfig, over: PluginConfig) -> dict[str, dict[str, Any]]:
    """``base`` with each option ``over`` sets replaced or added, section by section."""
    merged = {section: dict(options) for section, options in base.items()}
    for section, options in over.items():
        merged.setdefault(section, {}).update(options)
    return merged


def with_shorthands(
    config: PluginConfig, declared: Mapping[str, Settings], **values: Any
) -> dict[str, dict[str, Any]]:
    """``config`` with the options the shorthand flags fill, each given as its keyword
    (``acme_strict=True`` for ``--acme-strict``); a shorthand given wins over the same
    option in ``config``, and one left at None or False sets nothing."""
    merged = {section: dict(options) for section, options in config.items()}
    for keyword, value in values.items():
        if value is None or value is False:
            continue
        for section, setting in _targets(keyword, declared):
            merged.setdefault(section, {})[setting.name] = value
    return merged


def shorthand_value(config: PluginConfig, declared: Mapping[str, Settings], keyword: str) -> Any:
    """The value of the first option a shorthand fills that ``config`` sets (None: none)."""
    for section, setting in _targets(keyword, declared):
        value = config.get(section, {}).get(setting.name)
        if value is not None:
            return value
    return None


def _targets(keyword: str, declared: Mapping[str, Settings]) -> list[tuple[str, Setting]]:
    """The options a shorthand keyword's flag fills among those the loaded plugins declare."""
    return flags(declared).get(flag_of(keyword), [])
