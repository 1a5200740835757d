"""`{{ expressions }}` in game data (pack counts, board layouts, claims).

Evaluated by Jinja's immutable sandbox: data can read values (derived numbers, cards,
the pack, the player) but cannot call into Python or change anything.
"""
from __future__ import annotations

import functools
import re
from typing import Any

from jinja2 import StrictUndefined, TemplateError, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

_ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
_WHOLE = re.compile(r"^\s*\{\{(.*)\}\}\s*$", re.S)


class ExprError(ValueError):
    pass


def is_expr(value: Any) -> bool:
    return isinstance(value, str) and "{{" in value


@functools.lru_cache(maxsize=4096)
def _compiled(value: str):
    """An expression or template compiled once, however many pieces and copies use it."""
    whole = _WHOLE.match(value)
    if whole and "{{" not in whole.group(1):
        return _ENV.compile_expression(whole.group(1), undefined_to_none=False)
    return _ENV.from_string(value).render


def evaluate(value: Any, context: dict) -> Any:
    """A native value for '{{ x }}', a string for text with {{ }} inside, else value itself."""
    if not is_expr(value):
        return value
    try:
        result = _compiled(value)(**context)
        if isinstance(result, Undefined):
            result._fail_with_undefined_error()     # raises UndefinedError, reported below
        return result
    except TemplateError as exc:
        raise ExprError(f"{value.strip()}: {exc.message or exc}") from None
    except (TypeError, KeyError, IndexError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise ExprError(f"{value.strip()}: {exc}") from None


def evaluate_deep(value: Any, context: dict) -> Any:
    if isinstance(value, dict):
        return {k: evaluate_deep(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate_deep(v, context) for v in value]
    return evaluate(value, context)
