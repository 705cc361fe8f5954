"""Pass options typed as `Literal[...]`, checked with a message that names the pass and option.

xDSL's pipeline parser already refuses a value outside a `Literal` option's choices, but
its message names neither the pass nor the option ("Incompatible types: given ('fast',),
expected typing.Literal['labels', 'auto', 'single']").  `literal_option_error` gives the
message ge-opt prints, for a pipeline spec and for a pass built from Python alike:

    assign-streams: mode must be labels, auto or single, got 'fast'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass

from ge_dialect.diagnostics import OptionError


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
