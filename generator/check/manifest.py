"""What a pack's manifest must hold for preflight to measure its file against it.

A build writes the manifest beside the pack, but `pnp preflight FILE.pdf` reads whatever JSON
lies there (or is named with --manifest): one edited by hand, cut short or from another tool.
Every field the checks read is looked at first, by its place and type, so a manifest that
lacks one, or holds text where a number goes, is one finding naming where, never a crash.
Fields the checks do not read are not looked at (a manifest holds more, for people and tools).
"""
from __future__ import annotations

import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, ValidationError

Number = Union[StrictInt, StrictFloat]
Box = tuple[Number, Number, Number, Number]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Component(_Part):
    id: StrictStr
    kind: StrictStr


class _Deck(_Component):
    kind: Literal["deck"]
    trim_mm: tuple[Number, Number]
    safe_mm: Optional[Number] = None


class _Print(_Part):
    duplex: StrictStr = "long"
    back_offset_mm: tuple[Number, Number] = (0, 0)
    min_text_pt: Optional[Number] = None


class _Page(_Part):
    number: StrictInt
    role: StrictStr


class _CardSlot(_Part):
    card: StrictStr
    side: StrictStr
    copy_: Any = Field(alias="copy")       # (BaseModel has a copy())
    trim: Box
    bleed: Box
    component: Optional[StrictStr] = None


class _CardPage(_Page):
    size: tuple[Number, Number]
    slots: list[_CardSlot]
    component: Optional[StrictStr] = None
    front_page: Optional[StrictInt] = None


class _FoldPage(_CardPage):
    fold_x: Number


class _CutterPage(_CardPage):
    cutter: StrictStr
    cut_area: Box
    registration: list[tuple[Any, Number, Number, Number, Number, Any]]


class _Piece(_Part):
    piece: StrictStr


class _BoardPage(_Page):
    pieces: list[_Piece]


class _RulebookSlot(_Part):
    page: Any


class _RulebookPage(_Page):
    size: tuple[Number, Number]
    slots: list[_RulebookSlot]


class _Manifest(_Part):
    pages: list[dict]
    components: list[dict]
    print: _Print = _Print()


def _page_model(page: dict) -> type[_Page]:
    role = page.get("role")
    if not isinstance(role, str):
        return _Page
    if role.startswith("cards"):
        if "cut_area" in page:
            return _CutterPage
        return _FoldPage if role == "cards-fold" else _CardPage
    if role.startswith("board"):
        return _BoardPage
    return _RulebookPage if role == "rulebook" else _Page


def problem(manifest: Any, pdf_pages: int) -> str | None:
    """What in `manifest` preflight cannot read, as a short phrase naming where; None if nothing."""
    try:
        top = _Manifest.model_validate(manifest)
        for n, component in enumerate(top.components):
            model = _Deck if isinstance(component, dict) and component.get("kind") == "deck" else _Component
            _at(model, component, f"components[{n}]")
        for n, page in enumerate(top.pages):
            _at(_page_model(page) if isinstance(page, dict) else _Page, page, f"pages[{n}]")
    except _Wrong as exc:
        return str(exc)
    except ValidationError as exc:
        return _said(exc.errors()[0], "")
    decks = {c["id"] for c in top.components if c["kind"] == "deck"}
    for n, page in enumerate(top.pages):
        if not 1 <= page["number"] <= pdf_pages:
            return f"pages[{n}].number: {page['number']} is not a page of the PDF (1 to {pdf_pages})"
        if page["role"].startswith("cards"):
            for s, slot in enumerate(page["slots"]):
                deck = slot.get("component", page.get("component"))
                if deck not in decks:
                    return f"pages[{n}].slots[{s}]: its component {deck!r} is no deck the manifest lists"
    return None


class _Wrong(Exception):
    """A part's problem, already said with its place."""


def _at(model: type[_Part], value: Any, where: str) -> None:
    try:
        model.model_validate(value)
    except ValidationError as exc:
        raise _Wrong(_said(exc.errors()[0], where)) from None


def _said(error: dict, where: str) -> str:
    place = where
    for part in error["loc"]:
        place += f"[{part}]" if isinstance(part, int) else (f".{part}" if place else str(part))
    kind, said = error["type"], error["msg"][0].lower() + error["msg"][1:]
    said = re.sub(r" or instance of \w+", "", said)        # in JSON's words, not Python's
    said = said.replace("valid dictionary", "JSON object").replace("valid tuple", "list")
    if kind == "missing":
        said = "missing"
    elif kind != "literal_error":
        said += f", not {_short(error['input'])}"
    return f"{place}: {said}" if place else said


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
