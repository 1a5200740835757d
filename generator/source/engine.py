"""`engine:` in game.yaml: the pnp versions a game is written for, e.g. ">=0.2" or ">=0.2, <0.3".

pnp's version follows SemVer (CHANGELOG.md lists every change to the data format, with a migration
line for each break). A game that states the range it was written for gets one clear line when
this pnp is outside it, before anything else of the game is checked: a game written for a newer
pnp may use keys this one does not know, and one written for an older pnp may rely on something
since changed.
"""
from __future__ import annotations

import re

from generator import __version__
from generator.errors import PnpError, Problem

CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<|~=)?\s*(\d+(?:\.\d+){0,2})\s*$")


def _numbers(version: str) -> tuple[int, int, int]:
    parts = [int(p) for p in version.split(".")[:3]]
    return tuple(parts + [0] * (3 - len(parts)))        # type: ignore[return-value]


def _holds(operator: str, version: tuple, wanted: str) -> bool:
    bound = _numbers(wanted)
    if operator == "~=":          # ~=0.2: 0.2 or a later 0.x; ~=0.2.1: 0.2.1 or a later 0.2.x
        kept = max(1, len(wanted.split(".")) - 1)
        return version >= bound and version[:kept] == bound[:kept]
    return {">=": version >= bound, "<=": version <= bound, ">": version > bound, "<": version < bound,
            "==": version == bound, "!=": version != bound}[operator]


def satisfies(spec: str, version: str = __version__) -> bool | None:
    """Whether `version` is in the range `spec` states (clauses joined by commas; a bare version
    means ==); None when `spec` is not such a range."""
    clauses = [CLAUSE.match(c) for c in str(spec).split(",")]
    if not clauses or not all(clauses):
        return None
    return all(_holds(m.group(1) or "==", _numbers(version), m.group(2)) for m in clauses)


def check_engine(spec, display: str, line: int | None, version: str = __version__) -> None:
    """Raise the one problem of a game written for another pnp (see the module's docstring)."""
    if spec is None:
        return
    holds = satisfies(spec, version)
    if holds is None:
        raise PnpError(Problem(display, line, f"engine: {spec!r} is not a range of pnp versions",
                               "write it like \">=0.2\" or \">=0.2, <0.3\""))
    if not holds:
        lower = [CLAUSE.match(c) for c in str(spec).split(",")]
        newer = any((m.group(1) or "==") in (">=", ">", "==", "~=") and _numbers(m.group(2)) > _numbers(version)
                    for m in lower)
        fix = ("update pnp (git pull in the pnp folder, then make kit)" if newer else
               "CHANGELOG.md says what changed since and how to move the game; then update engine:")
        raise PnpError(Problem(display, line, f"this game is written for pnp {spec}; this pnp is {version}", fix))
