"""generator/source/context.py: plain() copies data for expressions and templates. A flat
mapping (a card's fields) is copied in one step; the copy must be what the general path makes,
shared parts must stay shared (an alias bomb stays as small as its text), and anything that is
not exactly a plain type still goes the general way."""
from __future__ import annotations

from markupsafe import Markup

from generator.source import context
from generator.source.context import plain


def test_a_flat_mapping_is_copied_as_the_general_path_copies_it():
    fields = {"title": "Fire & Ice", "cost": 3, "power": 1.5, "rare": True, "note": None}
    copy = plain(fields)
    assert copy == context._mapping(fields, {}, fields) == fields
    assert copy is not fields and type(copy) is dict
    copy["title"] = "changed"
    assert fields["title"] == "Fire & Ice"      # a copy: an expression cannot change the game's data


def test_shared_flat_mappings_stay_shared():
    leaf = {"a": 1}
    level = [leaf] * 10
    for _ in range(20):             # 10^20 leaves if every reference were copied
        level = [level] * 10
    copy = plain({"bomb": level, "again": leaf})
    inner = copy["bomb"]
    while isinstance(inner, list):
        assert all(item is inner[0] for item in inner)
        inner = inner[0]
    assert inner == {"a": 1} and inner is copy["again"]


def test_values_that_are_not_exactly_plain_go_the_general_way():
    class Text(str):
        pass

    mixed = {"markup": Markup("<b>x</b>"), "text": Text("y"), 2: "a number key", "list": [1, {"b": 2}]}
    copy = plain(mixed)
    assert copy == {"markup": "<b>x</b>", "text": "y", 2: "a number key", "list": [1, {"b": 2}]}
    assert type(copy["text"]) is str and type(copy["markup"]) is Markup
    flat = plain({"text": Text("y"), "markup": Markup("<i>z</i>")})     # flat, but not exactly plain
    assert type(flat["text"]) is str and type(flat["markup"]) is Markup
