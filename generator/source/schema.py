"""The shape of every YAML file in a game folder, as pydantic models.

These models are the single definition of the data format: the loader validates
against them, `pnp schema` writes JSON Schemas from them, and docs/authoring.md
describes them. Validation errors are translated into one-line problems that name
the file and line of the offending key.
"""
from __future__ import annotations

import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from generator.errors import Problem
from generator.source.words import closest
from generator.source.yamlsrc import line_at

ID = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=64,
                          description="lower-case letters, digits and '-' (at most 64: ids name files)")]
EXPR = r"^\s*\{\{.*\}\}\s*$"
Expr = Annotated[str, Field(pattern=EXPR, description="a {{ expression }} over game, derived, pack, player")]
Num = Union[float, Expr]
LANG = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"     # a BCP 47 tag: en, zh-Hans, pt-BR
HEX = r"#[0-9a-fA-F]{6}"
Colour = Annotated[str, Field(pattern=rf"^({HEX}|\{{\{{.*\}}\}}|none)$", description="#rrggbb")]
# a player's colour is a colour itself: nothing evaluates an expression or `none` written there
PlayerHex = Annotated[str, Field(pattern=rf"^{HEX}$", description="#rrggbb")]


def is_colour(value: Any) -> bool:
    """What a colour key may hold once its expression is evaluated: the literal rule, less the expression."""
    return isinstance(value, str) and (value == "none" or re.fullmatch(HEX, value) is not None)


def not_a_colour(value: Any) -> str:
    """The one wording for a value that is not a colour, written or evaluated."""
    return f"{_show(value)} is not a colour (use #rrggbb)"


class Strict(BaseModel):
    # defer_build: a model's validator is built the first time it validates, so a game without
    # boards or rules never pays for theirs at start-up
    # allow_inf_nan: a `.nan` or `.inf` written as a length would reach the PDF as `-nan`
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True, allow_inf_nan=False)


# --- sizes ------------------------------------------------------------------------------

CARD_SIZES = {  # trim sizes in mm; the print-fidelity presets
    "poker": (63.5, 88.9),
    "euro-poker": (63.0, 88.0),
    "bridge": (57.15, 88.9),
    "mini-euro": (44.0, 68.0),
    "mini-american": (41.0, 63.0),
    "tarot": (70.0, 120.0),
    "square": (70.0, 70.0),
}


class Size(Strict):
    width: float = Field(gt=0, le=1000, description="mm")
    height: float = Field(gt=0, le=1000, description="mm")


SizeRef = Union[Literal[tuple(CARD_SIZES)], Size]  # type: ignore[valid-type]


def size_mm(ref: Any) -> tuple[float, float]:
    if isinstance(ref, str):
        return CARD_SIZES[ref]
    return (ref.width, ref.height)


# --- game.yaml --------------------------------------------------------------------------

class CardDefaults(Strict):
    size: SizeRef = "euro-poker"
    bleed: float = Field(3.0, ge=0, le=10, description="mm of artwork beyond the trim")
    safe: float = Field(3.0, ge=0, le=15, description="mm inside the trim kept free of text")
    corner_radius: float = Field(0.0, ge=0, le=15, description="mm: rounded corners, followed by cut files and "
                                 "previews (0: square)")


class PlayerColour(Strict):
    id: ID
    name: str
    colour: PlayerHex
    symbol: str = Field(description="an emoji that tells this player apart without colour")
    pattern: Literal["none", "stripes", "dots", "waves", "checks", "diamonds", "zigzag"] = "none"


class PackDeck(Strict):
    count: int = Field(ge=0, description="cards this pack must hold (the game's stated composition)")
    where: dict[str, list[Union[str, int, float, bool]]] = Field(
        default_factory=dict, description="keep only cards whose field has one of these values")


class PackSpec(Strict):
    players: int = Field(ge=1, le=12, description="player count; also selects per-player-count copies")
    id: ID | None = Field(None, description="the pack's name in file names (default: <players>p)")
    optional: bool = Field(False, description="an extra pack, built with the full build but not by --players")
    name: str | None = None
    variant: str | None = Field(None, description="a label for a variant pack, e.g. 独灯局")
    decks: dict[str, PackDeck]
    pieces: dict[str, Union[int, Expr]] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.id or f"{self.players}p"

    @property
    def label(self) -> str:
        return f"{self.id} pack" if self.id else f"{self.players}-player pack"


class TuckBoxSpec(Strict):
    stock_mm: float = Field(0.32, gt=0, le=2, description="mm one card is thick (250 g/m² card ≈ 0.32)")
    groups: list[list[ID]] | None = Field(None, description="decks that share a box; default: one box per deck "
                                          "on card stock")
    show: dict[ID, ID] | None = Field(None, description="deck id -> the card whose face the box's back panel shows "
                                      "(default: the deck's back, when its cards share one)")

RULEBOOK_PAGES = {"a5": (148.0, 210.0), "a6": (105.0, 148.0), "b6": (125.0, 176.0)}  # page sizes in mm


class RulebookSpec(Strict):
    """How the rulebook (cards/<game>/rulebook/<language>.md) is printed."""
    page: Union[Literal[tuple(RULEBOOK_PAGES)], Size] = Field(  # type: ignore[valid-type]
        "a5", description="the rulebook's page size: a5, a6, b6 or {width, height} in mm")
    imposition: Literal["booklet", "pages"] = Field(
        "booklet", description="booklet: two pages a side, folded and stapled; pages: one page a sheet side")


class GameSpec(Strict):
    id: ID
    title: str
    subtitle: str | None = None
    language: str = Field("zh-Hans", pattern=LANG,
                          description="the data's language, when the game has one (see languages)")
    engine: str | None = Field(None, description="the pnp versions the game is written for, e.g. \">=0.2\" "
                               "(see CHANGELOG.md): another pnp says so and stops")
    languages: list[Annotated[str, Field(pattern=LANG)]] | None = Field(
        None, min_length=1, description="the editions, e.g. [zh-Hans, en]; the first is the data's own language, "
        "each other one has its catalogue cards/<game>/i18n/<lang>.yaml")
    source: str | None = Field(None, description="where the rules come from")
    description: str | None = Field(None, max_length=600,
                                    description="a short description for the game's printables page (pnp site)")
    time: str | None = Field(None, pattern=r"^[0-9]{1,3}(-[0-9]{1,3})?$",
                             description="playing time in minutes, e.g. 30 or 30-45 (pnp site)")
    draft: bool = Field(False, description="a game in the works: pnp site leaves it off the shelf unless --drafts")
    rules: str = "rules.py"
    card: CardDefaults = CardDefaults()
    css: list[str] = Field(default_factory=list, description="stylesheets under templates/ for every deck")
    keywords: list[str] = Field(default_factory=list, description="words styled as keywords in card text")
    player_colours: list[PlayerColour] = Field(default_factory=list)
    decks: list[str] = Field(description="deck files in this folder")
    pieces: str | None = Field(None, description="the file describing boards, maps and tokens")
    claims: str | None = Field(None, description="the file of the rules document's stated claims")
    tables: list[str] = Field(default_factory=list, description="table files: typed rows that are not printed as cards")
    data: list[str] = Field(default_factory=list, description="extra YAML files the rules module reads")
    rulebook: RulebookSpec = Field(RulebookSpec(), description="how rulebook/<language>.md is printed")
    supplies: list[str] = Field(default_factory=list,
                                description="household items the pack does not hold, printed on page 1")
    min_text_pt: Annotated[float, Field(gt=0, le=24)] = Field(
        6.0, description="the smallest printed text size in points on any component (preflight checks it); "
        "a rulebook figure shown reduced is exempt")
    packs: list[PackSpec]
    tuck_boxes: TuckBoxSpec | None = Field(None, description="print a tuck box for every deck or group of decks")

    @model_validator(mode="after")
    def _one_source_language(self):
        if self.languages is None:
            self.languages = [self.language]
        elif "language" in self.model_fields_set and self.language != self.languages[0]:
            raise ValueError(f"language '{self.language}' is not the first of languages {self.languages}")
        else:
            self.language = self.languages[0]
        if len(set(self.languages)) != len(self.languages):
            raise ValueError(f"languages: {self.languages} names a language twice")
        return self

    @field_validator("packs")
    @classmethod
    def _unique_packs(cls, packs):
        seen = set()
        for pack in packs:
            key = pack.key
            if key in seen:
                raise ValueError(f"two packs named {key}")
            seen.add(key)
        return packs


# --- deck files -------------------------------------------------------------------------

IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".webp", ".svg")     # an `image` field's pictures (render/art.py)
FIELD_TYPES = ("text", "rich", "int", "number", "bool", "icon", "enum", "player", "list", "image")


class FieldSpec(Strict):
    type: Literal[FIELD_TYPES]  # type: ignore[valid-type]
    required: bool = True
    default: Any = None
    values: list[Union[str, int]] | None = Field(None, description="allowed values of an enum")
    min: float | None = None
    max: float | None = None
    of: Literal["int", "number", "text"] | None = Field(None, description="item type of a list")
    max_length: int | None = Field(None, description="longest text, in characters")

    def line_fault(self, text: str) -> str | None:
        """A `text` field holds one line (a paragraph is a `rich` field's): the fault, if its text breaks."""
        return "expected one line of text (use a 'rich' field for paragraphs)" \
            if self.type == "text" and "\n" in text.strip() else None

    @model_validator(mode="after")
    def _enum_needs_values(self):
        if self.type == "enum" and not self.values:
            raise ValueError("an enum field needs 'values'")
        return self


class DeckSpec(Strict):
    id: ID
    name: str
    face: str = Field(description="template under templates/ that draws a card's face")
    back: str | None = Field(None, description="template for the back; none for single-sided cards")
    size: SizeRef | None = None
    bleed: float | None = Field(None, ge=0, le=10)
    safe: float | None = Field(None, ge=0, le=15)
    corner_radius: float | None = Field(None, ge=0, le=15, description="mm; overrides the game's card.corner_radius")
    stock: Literal["card", "paper"] = "card"
    css: list[str] = Field(default_factory=list)
    fields: dict[str, FieldSpec] = Field(default_factory=dict)


Copies = Union[Annotated[int, Field(ge=0, le=500)], dict[int, Annotated[int, Field(ge=0, le=500)]]]


class DeckFile(Strict):
    deck: DeckSpec
    cards: Union[Annotated[list[dict[str, Any]], Field(min_length=1)], str] = Field(
        description="the cards, or a spreadsheet of them in the game folder: goods.csv, goods.tsv, "
                    "goods.xlsx or goods.xlsx#Sheet")


class TableSpec(Strict):
    id: ID
    name: str
    fields: dict[str, FieldSpec] = Field(default_factory=dict)


class TableFile(Strict):
    """Typed rows that are data, not cards (a map's stations, a wheel's cells …)."""
    table: TableSpec
    rows: Union[Annotated[list[dict[str, Any]], Field(min_length=1)], str] = Field(
        description="the rows, or a spreadsheet of them (as a deck's cards)")


CARD_KEYS = {"id", "copies", "source"}  # keys every card may have besides its deck's fields


# --- pieces.yaml (boards, maps, tracks, tokens) -----------------------------------------

class Element(Strict):
    x: Num = 0
    y: Num = 0
    when: Expr | None = Field(None, description="draw only when this expression is true")


class RectEl(Element):
    type: Literal["rect"]
    w: Num
    h: Num
    fill: Colour = "none"
    stroke: Colour = "none"
    line: float = 0.3
    radius: Num = 0
    dash: bool = False


class LineEl(Element):
    type: Literal["line"]
    points: Union[list[list[Num]], Expr]
    stroke: Colour = "#333333"
    line: float = 0.5
    dash: bool = False
    arrow: bool = False


class TextEl(Element):
    type: Literal["text"]
    text: str
    size: Num = 9
    bold: bool = False
    colour: Colour = "#222222"
    align: Literal["left", "centre", "right"] = "left"
    w: Num | None = Field(None, description="wrap inside this width (mm)")
    rotate: Num = 0


class IconEl(Element):
    type: Literal["icon"]
    icon: str
    size: Num = 8
    rotate: Num = 0


class TrackMark(Strict):
    value: Union[int, Expr]
    fill: Colour | None = None
    label: str | None = None
    icon: str | None = None
    when: Expr | None = None


class TrackEl(Element):
    type: Literal["track"]
    start: Union[int, Expr] = Field(alias="from")
    end: Union[int, Expr] = Field(alias="to")
    per_row: int = Field(16, ge=1)
    cell: Num = 10
    row_height: Num = 8
    row_gap: Num = 1.5
    label: str | None = None
    icon: str | None = None
    colour: Colour = "#444444"
    negative_fill: Colour = "#e8e8e8"
    marks: list[TrackMark] = Field(default_factory=list)
    text_size: Num = 7


class StationsEl(Element):
    type: Literal["stations"]
    items: Expr
    w: Num
    h: Num
    rows: int = Field(2, ge=1)
    radius: Num = 14
    icon: str = Field(description="per-item expression for the station's icon")
    title: str
    lines: list[str] = Field(default_factory=list)
    strong: list[int] = Field(default_factory=list, description="indexes of lines drawn bold and larger")
    fill: Colour = "#ffffff"
    stroke: Colour = "#444444"
    path_colour: Colour = "#999999"
    text_size: Num = 8


class TableEl(Element):
    """A grid of cells. Rows are literal lists, a number of empty rows, or one row per item of
    `row_items` built from the `cells` templates (with `item` and `i` in context)."""
    type: Literal["table"]
    columns: list[Num | str]
    rows: Union[list[list[str]], Expr, int] = 0
    row_items: Expr | None = None
    cells: list[str] | None = None
    bold_columns: list[int] = Field(default_factory=list)
    row_height: Num = 8
    header: list[str] | None = None
    header_fill: Colour = "#eeeeee"
    text_size: Num = 8
    stroke: Colour = "#555555"
    highlight_rows: list[int] = Field(default_factory=list)
    highlight_fill: Colour = "#fff4d6"


class RingEl(Element):
    type: Literal["ring"]
    cx: Num
    cy: Num
    outer: Num
    inner: Num
    cells: Union[list[str], Expr, int]
    start_angle: Num = 90
    clockwise: bool = True
    fill: Colour = "#ffffff"
    stroke: Colour = "#444444"
    text_size: Num = 8
    icons: Union[list[str], Expr, None] = None
    sublabels: Union[list[str], Expr, None] = Field(None, description="a smaller second line in each cell")
    sublabel_size: Num = 6
    highlight: Union[list[int], Expr] = Field(default_factory=list)
    highlight_fill: Colour = "#fff4d6"


class CellsEl(Element):
    type: Literal["cells"]
    count: Union[int, Expr]
    cell: Num = 10
    per_row: int = 10
    labels: Union[list[str], Expr, None] = None
    stroke: Colour = "#555555"
    text_size: Num = 6


class PatternEl(Element):
    type: Literal["pattern"]
    w: Num
    h: Num
    pattern: Union[Literal["none", "stripes", "dots", "waves", "checks", "diamonds", "zigzag"], Expr]
    colour: Colour = "#000000"
    opacity: float = 0.25


class RepeatEl(Element):
    """A group of elements drawn once per item (or count times) in a grid; inside it
    `i` is the 0-based index and `item` the current item."""
    type: Literal["repeat"]
    count: Union[int, Expr, None] = None
    items: Expr | None = None
    per_row: int = Field(1, ge=1)
    dx: Num = 0
    dy: Num = 0
    elements: list["AnyElement"]

    @model_validator(mode="after")
    def _count_or_items(self):
        if (self.count is None) == (self.items is None):
            raise ValueError("a repeat needs exactly one of 'count' and 'items'")
        return self


AnyElement = Annotated[
    Union[RectEl, LineEl, TextEl, IconEl, TrackEl, StationsEl, TableEl, RingEl, CellsEl, PatternEl, RepeatEl],
    Field(discriminator="type"),
]
# (RepeatEl's forward reference to AnyElement is resolved when it first validates: defer_build)


class PieceSpec(Strict):
    id: ID
    name: str
    size: Size
    per_player: Union[bool, int] = Field(False, description="copies per player (true = 1), each drawn with its player's colour")
    stock: Literal["card", "paper"] = "card"
    shape: Literal["rect", "circle"] = "rect"
    own_page: bool = Field(False, description="start a new page for this piece")
    fold: Literal["none", "horizontal"] = Field("none", description="a fold line across the middle")
    outline: bool = Field(True, description="draw a thin cut line around the piece")
    background: Colour = "#ffffff"
    gap: float = Field(6.0, ge=0, le=30, description="mm left free around this piece on its sheet")
    elements: list[AnyElement] = Field(default_factory=list)
    back: list[AnyElement] | None = Field(None, description="a two-sided piece's back, printed behind it")


class PiecesFile(Strict):
    pieces: list[PieceSpec]


# --- claims.yaml ------------------------------------------------------------------------

class ClaimSpec(Strict):
    id: ID
    source: str = Field(description="where in the rules document the claim is made")
    quote: str = Field(description="what the document says")
    claimed: Any = Field(description="the document's value")
    computed: Expr = Field(description="the rules module's value for the same thing")
    holds: bool = Field(True, description="whether the claim is known to hold; false = a recorded contradiction")
    resolution: str | None = Field(None, description="what the kit prints instead, and why")
    tolerance: float = 0

    @model_validator(mode="after")
    def _contradiction_needs_resolution(self):
        if not self.holds and not self.resolution:
            raise ValueError("a claim that does not hold needs a 'resolution'")
        return self


class ClaimsFile(Strict):
    claims: list[ClaimSpec]


# --- i18n/<lang>.yaml (an edition's translations) -----------------------------------------

def _blank_is_empty(value):
    """'' or spaces written for a translation is an entry not translated yet, as an empty one is
    (it printed nothing, or the source's fallback, and counted as translated)."""
    return None if isinstance(value, str) and not value.strip() else value


Translation = Annotated[str | None, BeforeValidator(_blank_is_empty),
                        Field(description="the text in this language; placeholders, icons and {{ }} "
                                          "kept; empty: not translated yet")]


class CatalogueFile(Strict):
    """One language's text for a game whose data is in another: a translator edits this file only."""
    language: Annotated[str, Field(pattern=LANG)]
    title: Translation | None = None
    subtitle: Translation | None = None
    decks: dict[str, Translation] = Field(default_factory=dict, description="deck id -> the deck's name")
    cards: dict[str, dict[str, dict[str, Translation]]] = Field(
        default_factory=dict, description="deck id -> card id -> field -> text (text and rich fields)")
    colours: dict[str, Translation] = Field(default_factory=dict, description="player colour id -> name")
    pieces: dict[str, Translation] = Field(default_factory=dict, description="piece id -> name")
    keywords: list[str] | None = Field(None, description="this edition's keywords (replaces game.yaml's list)")
    text: dict[str, Translation] = Field(
        default_factory=dict, description="every other printed string, keyed by its exact source-language text: "
        "pieces.yaml texts, template literals in _(), enum values, supplies, pack variants")
    review: list[str] = Field(default_factory=list, description="entries whose source text changed since they were "
                              "translated (written by `pnp translate`): check each, then delete its line")
    sources: dict[str, str] = Field(default_factory=dict, description="`pnp translate`'s record: each entry's "
                                    "source text's hash when it was last written (leave it as it is)")

    @field_validator("decks", "cards", "colours", "pieces", "text", "review", "sources", mode="before")
    @classmethod
    def _emptied(cls, value, info):
        """A section whose last line the translator deleted (`review:` after the last entry was checked,
        as the file's header says to) is an empty section, as `pnp translate` writes it again."""
        if value is None:
            return [] if info.field_name == "review" else {}
        return value


# --- fonts/fonts.yaml ------------------------------------------------------------------

class FontEntry(Strict):
    family: str
    weight: int = Field(400, ge=100, le=900)
    file: str = Field(description="a TrueType file in fonts/")
    licence: str = Field("", description="its licence text, in fonts/")


class FontsFile(Strict):
    fonts: list[FontEntry] = Field(min_length=1, description="in fallback order: the first font that has a character draws it")
    languages: dict[str, list[str]] = Field(
        default_factory=dict, description="language -> font families in the fallback order for that edition "
        "(families left out follow in the order above); other languages use the order above")


# --- turning pydantic errors into located problems --------------------------------------

ELEMENT_TYPES = {"rect", "line", "text", "icon", "track", "stations", "table", "ring", "cells", "pattern", "repeat"}


def validation_problems(exc: ValidationError, data: Any, display: str, model: type | None = None) -> list[Problem]:
    """Each error at its file and line; `model` (the one validated) names the key an unknown one is
    likely meant for."""
    problems, located = [], set()
    plain = exc.errors()
    errors = [(err, _place(err["loc"])) for err in plain]
    meant = _misspelled(errors, model)
    for err, loc in errors:
        raw = err["loc"]
        if _wrong_branch(err, plain) or err["type"] == "missing" and loc in meant.values():
            continue            # (a required key missing that an unknown one beside it is meant for: said there)
        if _is_union_branch(raw) and loc in located:
            continue            # the other branches of a union at a place already reported
        located.add(loc)
        file, line = line_at(data, loc)
        hint = f" — did you mean '{meant[loc][-1]}'?" if loc in meant and err["type"] == "extra_forbidden" else ""
        problems.append(Problem(file or display, line, _describe(err, loc) + hint))
    return _dedupe(problems)


def _place(raw: tuple) -> tuple:
    """An error's place in the file: its location without pydantic's union branches and element tags."""
    return tuple(step for i, step in enumerate(raw) if not _is_union_tag(step)
                 and not (step in ELEMENT_TYPES and i > 0 and isinstance(raw[i - 1], int)))


def _misspelled(errors: list[tuple[dict, tuple]], model: type | None) -> dict[tuple, tuple]:
    """An unknown key's place -> the place of the key it is likely meant for: a required key that is
    missing beside it (a misspelled required key is two errors: one line says both), else one the
    mapping accepts, when the name is close."""
    missing = {loc for err, loc in errors if err["type"] == "missing" and loc and isinstance(loc[-1], str)}
    meant = {}
    for err, loc in errors:
        if err["type"] == "extra_forbidden" and loc and isinstance(loc[-1], str):
            near = closest(loc[-1], [m[-1] for m in missing if m[:-1] == loc[:-1]])
            if near is not None:
                missing.discard(loc[:-1] + (near,))
            else:
                near = closest(loc[-1], _keys_at(model, err["loc"][:-1]))
            if near is not None:
                meant[loc] = loc[:-1] + (near,)
    return meant


def _keys_at(model: type | None, raw: tuple) -> list[str]:
    """The keys `model` accepts in the mapping at `raw` (an error's location, pydantic's union
    branches named in it), or none when the way there is not through models."""
    kind = model
    for step in raw:
        kind = _inside(kind, step)
    kind = _unwrapped(kind)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return [field.alias or name for name, field in kind.model_fields.items()]
    return []


def _inside(kind, step):
    """What is at `step` of a value of type `kind` (None: not known)."""
    kind = _unwrapped(kind)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        field = next((f for n, f in kind.model_fields.items() if step in (n, f.alias)), None)
        return field.annotation if field is not None else (kind if _is_union_tag(step) else None)
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):        # the branch pydantic names by its tag or class
        return next((a for a in map(_unwrapped, args) if step == getattr(a, "__name__", None)
                     or step in get_args(getattr(a, "model_fields", {}).get("type", Field()).annotation)), None)
    if origin in (list, tuple) and isinstance(step, int) or origin is dict:
        return args[-1] if args else None
    return None


def _unwrapped(kind):
    """A type without Annotated's metadata and without an optional's None."""
    while get_origin(kind) is Annotated or (get_origin(kind) in (Union, types.UnionType)
                                            and type(None) in get_args(kind) and len(get_args(kind)) == 2):
        kind = get_args(kind)[0] if get_origin(kind) is Annotated else \
            next(a for a in get_args(kind) if a is not type(None))
    return kind


def _wrong_branch(err: dict, errors: list[dict]) -> bool:
    """A union's text branch refusing a list or mapping (`cards: goods.csv` or a list of cards)
    while the other branch says what is wrong inside it: that one is the error to show."""
    raw = err["loc"]
    if err["type"] != "string_type" or "str" not in raw:
        return False
    prefix = raw[:raw.index("str")]
    return any(other is not err and other["loc"][:len(prefix)] == prefix and "str" not in other["loc"]
               for other in errors)


def _is_union_branch(raw: tuple) -> bool:
    return any(_is_union_tag(step) for step in raw)


def _is_union_tag(step) -> bool:
    return isinstance(step, str) and (
        step.startswith(("function-", "literal[", "union[", "constrained-str", "list["))
        or step in {"str", "int", "float", "bool", "list[...]", "dict[...]"}
        or re.match(r"^[A-Z]\w*El$", step) is not None
        or step in {"Size", "Expr"}
    )


def _describe(err: dict, loc: tuple) -> str:
    where = ".".join(str(step) for step in loc) or "file"
    kind, value = err["type"], err.get("input")
    if kind == "missing":
        return f"{where}: required key is missing"
    if kind == "extra_forbidden":
        return f"{where}: unknown key"
    expected = {
        "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
        "float_type": "a number", "float_parsing": "a number", "string_type": "text",
        "bool_type": "true or false", "bool_parsing": "true or false", "list_type": "a list",
        "dict_type": "a mapping", "model_type": "a mapping", "finite_number": "a finite number",
    }.get(kind)
    if expected:
        return f"{where}: expected {expected}, got {_show(value)}"
    if kind == "string_pattern_mismatch":
        pattern = err.get("ctx", {}).get("pattern", "")
        if pattern == EXPR:
            return f"{where}: expected a number or a {{{{ expression }}}}, got {_show(value)}"
        if pattern == LANG:
            return f"{where}: {_show(value)} is not a language tag (like en, zh-Hans or pt-BR)"
        if "a-z0-9" in pattern:
            return f"{where}: {_show(value)} is not a valid id (use lower-case letters, digits and '-')"
        if "#[0-9a-fA-F]" in pattern:
            return f"{where}: {not_a_colour(value)}"
    if kind == "literal_error":
        options = err["ctx"]["expected"]
        if "'euro-poker'" in options:
            return f"{where}: {_show(value)} is not one of {options}, or a size like {{width: 63, height: 88}}"
        return f"{where}: {_show(value)} is not one of {options}"
    bounds = {"less_than_equal": "above the maximum", "less_than": "not below", "greater_than_equal": "below the minimum",
              "greater_than": "not above"}
    if kind in bounds:
        limit = next(iter(err.get("ctx", {}).values()), "")
        return f"{where}: {_show(value)} is {bounds[kind]} {limit:g}" if isinstance(limit, (int, float)) \
            else f"{where}: {_show(value)} is {bounds[kind]} {limit}"
    if kind == "union_tag_invalid":
        return f"{where}: unknown element type {_show(err['ctx'].get('tag'))} (expected {err['ctx'].get('expected_tags')})"
    if kind == "too_short":
        return f"{where}: must not be empty"
    msg = err["msg"]
    msg = msg[len("Value error, "):] if msg.startswith("Value error, ") else msg
    return f"{where}: {msg[0].lower() + msg[1:]}"


def _show(value) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 40 else text[:37] + "…'"


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for problem in problems:
        key = (problem.path, problem.line, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out

