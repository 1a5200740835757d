"""Rules of __TITLE__: every number the kit prints is computed here.

derive(game) returns the values templates and boards use as `derived`; check(game, derived)
returns the problems that must stop a build (a list of strings). See docs/authoring.md.
"""


def derive(game) -> dict:
    return {}


def check(game, derived: dict) -> list[str]:
    return []
