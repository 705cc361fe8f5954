"""Pass options: checked with messages that name the pass and the option, and described.

xDSL's pipeline parser checks an option's value against its field's type, but its messages
name neither the pass nor the option ("Incompatible types: given ('abc',), expected <class
'int'>") and it takes a bare option word as no value at all.  `check_option` checks one
option as a pipeline spec writes it, before xDSL sees it, with the messages ge-opt prints:

    assign-streams: option 'max-streams' expects an integer, got 'abc'
    assign-streams: option 'max-streams' requires a value
    assign-streams: unknown option 'nope' (options: mode, max-streams, report)
    assign-streams: mode must be labels, auto or single, got 'fast'

and makes a bare word of a boolean option `true`, as MLIR does (`assign-streams{report}`).
The last message is `literal_option_error`'s, the check of a `Literal` option, which the
passes also run on themselves (`check_literal_options` in `__post_init__`), so that a pass
built from Python gets it too.  `describe_options` lists the options for `--help`.

Supported option types are xDSL's: bool, int, float, str, `Literal[...]`, `tuple[T, ...]`
and `T | None`.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass

from ge_dialect.utils.errors import OptionError

Values = tuple[Any, ...]
"""An option's values as xDSL's pipeline parser gives them (`a=1,2` -> (1, 2); `a` -> ())."""

_SCALARS: dict[type, tuple[str, str]] = {
    bool: ("true or false", "<bool>"),
    int: ("an integer", "<int>"),
    float: ("a number", "<number>"),
    str: ("a string", "<string>"),
}
"""Option types: what the error message says a value must be, how `--help` shows it."""


def _choices(pass_cls: type[ModulePass], field: str) -> tuple[object, ...] | None:
    hint = get_type_hints(pass_cls).get(field)
    return get_args(hint) if get_origin(hint) is Literal else None


def _is_choice(value: object, choices: Sequence[object]) -> bool:
    # `8.0 == 8` and `True == 1`: a value must also have the type of its choice.
    return any(type(value) is type(c) and value == c for c in choices)


def literal_option_error(pass_cls: type[ModulePass], option: str, value: object) -> str | None:
    """Why `value` is not a valid value of `pass_cls`'s option `option`, or None.

    `option` is written with dashes or underscores; only `Literal` options are checked.
    """
    choices = _choices(pass_cls, option.replace("-", "_"))
    if choices is None or _is_choice(value, choices):
        return None
    text = ", ".join(str(c) for c in choices[:-1]) + f" or {choices[-1]}"
    return f"{pass_cls.name}: {option.replace('_', '-')} must be {text}, got {value!r}"


def check_literal_options(p: ModulePass) -> None:
    """Raises OptionError for the first `Literal` option of `p` outside its choices."""
    for field in dataclasses.fields(p):
        if (
            message := literal_option_error(type(p), field.name, getattr(p, field.name))
        ) is not None:
            raise OptionError(message)


def _options(pass_cls: type[ModulePass]) -> dict[str, Any]:
    """Option name (with dashes) -> the type of its field."""
    hints = get_type_hints(pass_cls)
    return {f.name.replace("_", "-"): hints[f.name] for f in dataclasses.fields(pass_cls)}


def _without_none(hint: Any) -> tuple[Any, bool]:
    """`T | None` -> (T, True); any other type -> (itself, False)."""
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        rest = tuple(a for a in get_args(hint) if a is not type(None))
        return (rest[0] if len(rest) == 1 else Union[rest]), True  # noqa: UP007
    return hint, False


def _scalar(value: object, hint: Any) -> object | None:
    """`value` as a value of the scalar type `hint` (an int is a number), else None."""
    if hint is float and type(value) is int:
        return float(value)
    return value if type(value) is hint else None  # exact: `True` is not an integer here


def _expected(hint: Any) -> str:
    if get_origin(hint) is tuple:
        return f"a comma-separated list, each {_expected(get_args(hint)[0])}"
    return _SCALARS.get(hint, (f"a value of type {hint}", ""))[0]


def _text(values: Values) -> str:
    return ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)


def check_option(pass_cls: type[ModulePass], option: str, values: Values) -> Values:
    """The values of option `option` of `pass_cls` as written in a pipeline spec, checked.

    Returns the values xDSL's `from_spec` takes (a bare boolean option becomes `(True,)`, an
    integer given to a float option a float); raises `OptionError` naming the pass, the
    option and what it expects.  `option` is written with dashes or underscores.
    """
    name = option.replace("_", "-")
    options = _options(pass_cls)
    if name not in options:
        known = f"options: {', '.join(options)}" if options else "it has no options"
        raise OptionError(f"{pass_cls.name}: unknown option '{name}' ({known})")
    hint, optional = _without_none(options[name])
    if not values:
        if hint is bool:
            return (True,)
        if optional:
            return ()
        raise OptionError(f"{pass_cls.name}: option '{name}' requires a value")
    if get_origin(hint) is Literal:
        value = values[0] if len(values) == 1 else values
        if (message := literal_option_error(pass_cls, name, value)) is not None:
            raise OptionError(message)
        return values
    if get_origin(hint) is tuple:
        converted = tuple(_scalar(v, get_args(hint)[0]) for v in values)
    else:
        converted = (_scalar(values[0], hint),) if len(values) == 1 else (None,)
    if any(v is None for v in converted):
        raise OptionError(
            f"{pass_cls.name}: option '{name}' expects {_expected(hint)}, got '{_text(values)}'"
        )
    return converted


def _shown(hint: Any) -> str:
    """How `--help` writes a value of type `hint`: `<int>`, `a|b|c`, `<int>,...`."""
    hint, _ = _without_none(hint)
    if get_origin(hint) is Literal:
        return "|".join(str(c) for c in get_args(hint))
    if get_origin(hint) is tuple:
        return f"{_shown(get_args(hint)[0])},..."
    return _SCALARS.get(hint, ("", f"<{hint}>"))[1]


def describe_options(pass_cls: type[ModulePass], helps: Mapping[str, str]) -> list[str]:
    """One line per option of `pass_cls`, for `--help`: `name=<type> (default D): help`.

    The help of an option is its field's `metadata["help"]`, else `helps[name]` (the name
    with dashes).
    """
    lines: list[str] = []
    hints = get_type_hints(pass_cls)
    for field in dataclasses.fields(pass_cls):
        name = field.name.replace("_", "-")
        if field.default is not dataclasses.MISSING:
            default = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        else:
            default = dataclasses.MISSING
        shown = (
            "required"
            if default is dataclasses.MISSING
            else "default none"
            if default is None
            else f"default {_text(default if isinstance(default, tuple) else (default,))}"
        )
        text = field.metadata.get("help") or helps.get(name, "")
        line = f"{name}={_shown(hints[field.name])} ({shown})"
        lines.append(f"{line}: {text}" if text else line)
    return lines
