"""`{{ expressions }}` in game data (pack counts, board layouts, claims), and the bounded
sandbox card templates use too.

Evaluated by Jinja's immutable sandbox over plain data (source/context.py): data can read
values (derived numbers, cards, the pack, the player) but cannot call into Python or change
anything. Every evaluation is bounded as well: numbers, text and lists it makes have a
size limit, it has a CPU-time budget, and recursion (a macro or template that calls itself)
ends in an error — never a hang or an exhausted memory.
"""
from __future__ import annotations

import contextlib
import functools
import re
import signal
import threading
from typing import Any

from generator.errors import abbreviate
from jinja2 import StrictUndefined, TemplateError, Undefined, filters as jinja_filters
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_ITEMS = 1_000_000         # characters of one text, items of one list an expression makes
MAX_INT_BITS = 4096           # about 1233 digits: far beyond any game's number
TIME_BUDGET = 2.0             # CPU seconds one evaluation or one card template may take
_WHOLE = re.compile(r"^\s*\{\{(.*)\}\}\s*$", re.S)
_BIG_FORMAT_WIDTH = re.compile(r"\d{7,}")


class ExprError(ValueError):
    pass


class LimitError(ExprError):
    """An evaluation that would grow too big or take too long; `origin` is the exception
    that stopped it (its traceback says which template line was running)."""
    origin: BaseException | None = None


def _limit(message: str):
    raise LimitError(message)


def _check_size(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_ITEMS:
        _limit(f"the result is longer than {MAX_ITEMS:,} items")
    return value


def _power(left, right):
    if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1:
        if right > MAX_INT_BITS or abs(left).bit_length() * right > MAX_INT_BITS:
            _limit(f"{left} ** {right} is too large a number")
    return left ** right


def _times(left, right):
    sizes = [len(v) for v in (left, right) if isinstance(v, (str, list, tuple))]
    counts = [v for v in (left, right) if isinstance(v, int) and not isinstance(v, bool)]
    if sizes and counts and sizes[0] * max(counts[0], 0) > MAX_ITEMS:
        _limit(f"repeating {sizes[0]} items {counts[0]:,} times makes more than {MAX_ITEMS:,}")
    if len(counts) == 2 and counts[0].bit_length() + counts[1].bit_length() > MAX_INT_BITS:
        _limit("the product is too large a number")
    return left * right


def _modulo(left, right):
    if isinstance(left, str) and _BIG_FORMAT_WIDTH.search(left):
        _limit("a format width is too large")
    return left % right


_BINOPS = {"**": _power, "*": _times, "%": _modulo}


def _bounded_filter(function, width_args=(), width_kwargs=()):
    """A Jinja filter whose width or count arguments are limited (center(10**9) …)."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        values = [args[i] for i in width_args if i < len(args)] + [kwargs[k] for k in width_kwargs if k in kwargs]
        for value in values:
            if isinstance(value, int) and value > MAX_ITEMS:
                _limit(f"{function.__name__}: {value:,} is too large")
        return _check_size(function(*args, **kwargs))
    return wrapper


def _bounded_replace(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        _check_replace(*[a for a in args if not hasattr(a, "environment")][:3])
        return function(*args, **kwargs)
    return wrapper


def _check_replace(text="", old="", new="", *rest):
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        grows = len(new) - len(old)
        if grows > 0 and len(text) + (text.count(old) if old else len(text) + 1) * grows > MAX_ITEMS:
            _limit(f"replace would make more than {MAX_ITEMS:,} characters")


# argument positions holding a width or a count (after the value the filter applies to)
_FILTER_WIDTHS = {"center": ((1,), ("width",)), "indent": ((1,), ("width",)), "wordwrap": ((2,), ("width",)),
                  "truncate": ((1,), ("length",)), "batch": ((1,), ("linecount",)), "slice": ((1,), ("slices",))}
_STR_METHODS_WITH_WIDTH = {"center", "ljust", "rjust", "zfill", "expandtabs"}


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with sizes bounded, and mappings read field first: for a
    card's field named `items` or `keys`, `card.items` is that field, not dict.items."""
    intercepted_binops = frozenset(_BINOPS)

    def __init__(self, **options):
        super().__init__(**options)
        for name, (positions, keywords) in _FILTER_WIDTHS.items():
            self.filters[name] = _bounded_filter(jinja_filters.FILTERS[name], positions, keywords)
        self.filters["replace"] = _bounded_replace(jinja_filters.FILTERS["replace"])
        self.filters["format"] = _bounded_format(jinja_filters.FILTERS["format"])

    def call_binop(self, context, op: str, left, right):
        return _check_size(_BINOPS[op](left, right))

    def getattr(self, obj, attribute):
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def wrap_str_format(self, value):
        wrapped = super().wrap_str_format(value)
        if wrapped is not None and _BIG_FORMAT_WIDTH.search(str(value.__self__)):
            def refuse(*args, **kwargs):
                _limit("a format width is too large")
            return refuse
        return wrapped

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's signature
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            name = getattr(__obj, "__name__", "")
            if name in _STR_METHODS_WITH_WIDTH and any(isinstance(a, int) and a > MAX_ITEMS for a in args):
                _limit(f"{name}: a width of more than {MAX_ITEMS:,}")
            if name == "replace":
                _check_replace(owner, *args)
        return _check_size(super().call(__context, __obj, *args, **kwargs))


def _bounded_format(function):
    @functools.wraps(function)
    def wrapper(value, *args, **kwargs):
        if isinstance(value, str) and _BIG_FORMAT_WIDTH.search(value):
            _limit("a format width is too large")
        return function(value, *args, **kwargs)
    return wrapper


class _OutOfTime(Exception):
    """Raised by the CPU-time alarm (an Exception, so Jinja maps its traceback to template lines)."""


@contextlib.contextmanager
def time_budget(seconds: float = TIME_BUDGET):
    """Stop the code inside after `seconds` of CPU time with LimitError. Only the main thread
    can take the alarm (elsewhere the size limits still hold); nested budgets keep the outer."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_PROF)[0]:
        yield
        return

    def alarm(signum, frame):
        raise _OutOfTime()

    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    except _OutOfTime as exc:
        raise _from(exc, f"took more than {seconds:g} s to evaluate (a loop far too long?)") from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@contextlib.contextmanager
def outside_budget():
    """Work a template asks of the engine rather than does itself (decoding a card's picture: a
    large photo takes a second or more) is not counted in its time budget: the alarm is held."""
    remaining = (signal.getitimer(signal.ITIMER_PROF)[0]
                 if threading.current_thread() is threading.main_thread() else 0)
    if remaining:
        signal.setitimer(signal.ITIMER_PROF, 0)
    try:
        yield
    finally:
        if remaining:
            signal.setitimer(signal.ITIMER_PROF, remaining)


def guarded(function):
    """function(), its runaway failures (too big, too slow, too deep) as LimitError."""
    try:
        with time_budget():
            return function()
    except RecursionError as exc:
        raise _from(exc, "nested too deeply (a macro or template that calls itself?)") from None
    except MemoryError as exc:
        raise _from(exc, "needs more memory than any card or board could") from None
    except OverflowError as exc:
        raise _from(exc, str(exc)) from None


def _from(origin: BaseException, message: str) -> LimitError:
    error = LimitError(message)
    error.origin = origin
    return error


_ENV = BoundedSandbox(undefined=StrictUndefined, autoescape=False)


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
        return guarded(lambda: _evaluate(value, context))
    except LimitError as exc:
        raise LimitError(f"{abbreviate(value.strip(), 200)}: {exc}") from None
    except TemplateError as exc:
        raise ExprError(f"{abbreviate(value.strip(), 200)}: {exc.message or exc}") from None
    except (TypeError, KeyError, IndexError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise ExprError(f"{abbreviate(value.strip(), 200)}: {abbreviate(str(exc), 200)}") from None


def _evaluate(value: str, context: dict) -> Any:
    result = _compiled(value)(**context)
    if isinstance(result, Undefined):
        result._fail_with_undefined_error()     # raises UndefinedError, reported by evaluate
    return result


def evaluate_deep(value: Any, context: dict) -> Any:
    if isinstance(value, dict):
        return {k: evaluate_deep(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate_deep(v, context) for v in value]
    return evaluate(value, context)

