"""`pnp export GAME --tts`: Tabletop Simulator decks, boards and tokens.

Per deck of the pack: sheet images of at most 10 × 7 cards and 4096 px a side (card faces at
their trim, no bleed), one back image (or a back sheet laid out like the faces when the
backs differ), and a saved-object JSON that loads them, with every copy and every card's
name. Every board, map and tile becomes a custom tile and every token a custom token, at its
printed size (Tabletop Simulator's unit is one inch). `<game>.json` holds the whole pack in one
saved object: decks, boards and every copy of every token, laid out side by side.
Images load from their local paths, or from `--tts-base-url` (a hosted copy of the tts/ folder,
which other players in a multiplayer game need). docs/exports.md says where the JSON goes.

The last slot of every sheet holds the back: Tabletop Simulator shows that slot for a card
whose face is hidden, so a sheet has room for 69 cards.
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass

from PIL import Image

from generator.source.assets import Assets
from generator.atomic import write_atomic
from generator.sheets.kit import check_game, faces_for, pick_pack
from generator.source.game import Card, Deck
from generator.source.project import Project
from generator.export.raster import Frame, draw_pages, faces_pdf
from generator.export.rulebook import pack_rulebook
from generator.render.cards import CardRenderer
from generator.source.words import count

MAX_COLS, MAX_ROWS, MAX_PX = 10, 7, 4096
PER_SHEET = MAX_COLS * MAX_ROWS - 1


@dataclass(frozen=True)
class Layout:
    cols: int
    rows: int
    card_px: tuple[int, int]

    @property
    def sheet_px(self) -> tuple[int, int]:
        return self.cols * self.card_px[0], self.rows * self.card_px[1]


def layout_for(count: int, trim_mm: tuple[float, float], card_px: tuple[int, int] | None = None) -> Layout:
    """The grid for `count` cards plus the back slot; the card size is the largest that keeps
    the sheet within MAX_PX on both sides, unless given (every sheet of a deck uses the
    size of its fullest, first sheet)."""
    slots = count + 1
    cols = min(MAX_COLS, slots)
    rows = math.ceil(slots / cols)
    if card_px is None:
        w, h = trim_mm
        width = min(MAX_PX // cols, int(MAX_PX // rows * w / h))
        card_px = (width, round(width * h / w))
    return Layout(cols, rows, card_px)


def export_tts(project: Project, assets: Assets, game_id: str, players: int | None = None, jobs: int = 1,
               say=print, base_url: str | None = None, lang: str | None = None) -> list[str]:
    checked = check_game(project, assets, game_id, lang)
    game = checked.game
    assets = assets.edition(game.spec.language)
    pack = pick_pack(game, players)
    renderer = CardRenderer(project, assets, game)
    faces = faces_for(game, renderer, [pack])
    rendered = renderer.render(list(faces.values()), jobs=jobs)
    folder = project.build / game.id / f"tts{game.name_suffix}"
    url = _url_maker(base_url)
    written, objects = [], []
    for deck in game.decks.values():
        if deck.id not in pack.decks:
            continue
        cards = game.pack_cards(pack, deck.id)
        if not cards:
            continue
        files, saved = _deck(project, assets, deck, cards, faces, rendered, folder, jobs, url)
        written += files
        objects += saved["ObjectStates"]
        say(f"wrote {project.display(folder / f'{deck.id}.json')} ({count(sum(n for _, n in cards), 'card')}, "
            f"{count(len(cards), 'design')})")
    files, pieces = _pieces(project, assets, game, pack, folder, url)
    written += files
    objects += pieces
    rules = pack_rulebook(project, assets, checked, renderer, pack)
    if rules is not None:
        path = folder / RULEBOOK_FILE
        write_atomic(path, rules.pdf)
        written.append(project.display(path))
        objects.append(_rulebook_object(rules, url(path)))
    target = folder / f"{game.id}.json"
    write_atomic(target, _dump(_save(_laid_out(objects))))
    written.append(project.display(target))
    say(f"wrote {project.display(target)} (the whole pack: {count(len(objects), 'object')}, "
        f"{count(len(pieces), 'board and token', 'boards and tokens')}{', the rulebook' if rules else ''})")
    return written


def _url_maker(base_url: str | None):
    """Local file URLs, or the same file names under a hosted copy of the tts/ folder."""
    if base_url:
        base = base_url if base_url.endswith("/") else base_url + "/"
        return lambda path: base + path.name
    return lambda path: path.resolve().as_uri()


def _dump(data: dict) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _save(objects: list[dict]) -> dict:
    return {"SaveName": "", "GameMode": "", "Date": "", "Table": "", "Sky": "", "Note": "", "Rules": "",
            "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": objects, "TabStates": {},
            "VersionNumber": ""}


def _laid_out(objects: list[dict]) -> list[dict]:
    """Side by side along the table; the copies of one token or board in a pile where the first lies."""
    placed, x, piles = [], 0.0, {}
    for obj in objects:
        width, pile = obj.pop("_width", 3.0), obj.pop("_stack", None)
        if pile is not None and pile in piles:
            centre, height = piles[pile]
            piles[pile] = (centre, height + 0.25)
        else:
            centre, height = round(x + width / 2, 3), 1.0
            piles[pile] = (centre, height)
            x += width + 0.5
        placed.append({**obj, "Transform": {**obj["Transform"], "posX": centre, "posY": height}})
    return placed


RULEBOOK_FILE = "rulebook.pdf"


def _rulebook_object(rules, url: str) -> dict:
    """The rulebook as Tabletop Simulator's PDF object, open at its first page."""
    transform = {"posX": 0, "posY": 1, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 0,
                 "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}
    return {"Name": "Custom_PDF", "Nickname": rules.title, "Description": "rulebook", "Transform": transform,
            "CustomPDF": {"PDFUrl": url, "PDFPassword": "", "PDFPage": 0, "PDFPageOffset": 0}, "_width": 6.0}


MM_PER_UNIT = 25.4          # Tabletop Simulator measures in inches
PIECE_PX = 2048             # the longer side of a board or token image
TOKEN_MM = 60.0             # a piece this small (longer side) is a token to pick up; larger ones are tiles


def _pieces(project, assets, game, pack, folder, url) -> tuple[list[str], list[dict]]:
    """Boards and maps as custom tiles, tokens as custom tokens, each at its printed size."""
    from generator.export.piece_images import piece_images
    counts = game.piece_counts.get(pack.key, {})
    images: dict[tuple[str, int], dict[str, str]] = {}
    written = []
    for image in piece_images(assets, game, pack, PIECE_PX, every_colour=True):
        suffix = f"-p{image.player + 1}" if image.piece.per_player else ""
        path = folder / f"piece-{image.piece.id}{suffix}-{image.side}.png"
        write_atomic(path, image.png)
        written.append(project.display(path))
        images.setdefault((image.piece.id, image.player), {})[image.side] = url(path)
    objects = []
    for (piece_id, player), sides in images.items():
        piece = game.pieces[piece_id]
        w, h = piece.size.width / MM_PER_UNIT, piece.size.height / MM_PER_UNIT
        token = max(piece.size.width, piece.size.height) <= TOKEN_MM
        copies = int(piece.per_player) if piece.per_player else counts[piece_id]   # per player: each colour's own
        for _ in range(copies):
            objects.append({**_piece_object(piece, sides, w, h, token), "_stack": (piece_id, player)})
    return written, objects


def _piece_object(piece, sides: dict, w: float, h: float, token: bool) -> dict:
    transform = {"posX": 0, "posY": 1, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 0,
                 "scaleX": round(w / 2, 4), "scaleY": 1, "scaleZ": round(w / 2, 4)}
    if token:
        custom = {"ImageURL": sides["front"], "ImageSecondaryURL": sides.get("back", ""), "ImageScalar": 1.0,
                  "WidthScale": 0.0, "CustomToken": {"Thickness": 0.2, "MergeDistancePixels": 15.0,
                                                     "StandUp": False, "Stackable": True}}
        return {"Name": "Custom_Token", "Nickname": piece.name, "Description": piece.id, "Transform": transform,
                "CustomImage": custom, "_width": w}
    custom = {"ImageURL": sides["front"], "ImageSecondaryURL": sides.get("back", ""), "ImageScalar": 1.0,
              "WidthScale": 0.0, "CustomTile": {"Type": 0, "Thickness": 0.2, "Stackable": False, "Stretch": True}}
    transform["scaleZ"] = round(h / 2, 4)       # a stretched tile takes both sides from its scale
    return {"Name": "Custom_Tile", "Nickname": piece.name, "Description": piece.id, "Transform": transform,
            "CustomImage": custom, "_width": w}


def _deck(project, assets, deck: Deck, cards: list[tuple[Card, int]], faces, rendered, folder, jobs,
          url) -> tuple[list[str], dict]:
    sheets = [cards[i:i + PER_SHEET] for i in range(0, len(cards), PER_SHEET)]
    backs = [faces.get((deck.id, card.id, "back")) for card, _ in cards]
    unique_back = deck.spec.back is not None and len({b.key for b in backs}) > 1
    card_px = layout_for(len(sheets[0]), deck.trim).card_px
    images = _draw(assets, deck, cards, faces, rendered, card_px, jobs)
    written, custom = [], {}
    for number, sheet in enumerate(sheets, 1):
        layout = layout_for(len(sheet), deck.trim, card_px)
        back_key = backs[0].key if deck.spec.back else None
        face_sheet = _sheet(layout, [images[faces[(deck.id, c.id, "face")].key] for c, _ in sheet],
                            images.get(back_key) if back_key else None)
        face_path = folder / f"{deck.id}-{number}.png"
        write_atomic(face_path, face_sheet)
        entry = {"FaceURL": url(face_path), "NumWidth": layout.cols, "NumHeight": layout.rows,
                 "BackIsHidden": True, "UniqueBack": unique_back, "Type": 0}
        if unique_back:
            back_path = folder / f"{deck.id}-{number}-backs.png"
            write_atomic(back_path, _sheet(layout, [images[faces[(deck.id, c.id, "back")].key] for c, _ in sheet],
                                           None))
            entry["BackURL"] = url(back_path)
        else:
            back_path = folder / f"{deck.id}-back.png"
            if back_key:
                write_atomic(back_path, _png(images[back_key], layout.card_px))
            else:                         # single-sided: a plain back
                write_atomic(back_path, _png(None, layout.card_px))
            entry["BackURL"] = url(back_path)
        custom[str(number)] = entry
        written += [project.display(face_path), project.display(back_path)]
    target = folder / f"{deck.id}.json"
    saved = _saved_object(deck, sheets, custom)
    write_atomic(target, _dump(saved))
    return written + [project.display(target)], saved


def _draw(assets, deck, cards, faces, rendered, card_px, jobs) -> dict[str, Image.Image]:
    """Every distinct face and back of the deck at the sheet's card size, trim only."""
    keys = []
    for card, _ in cards:
        for side in ("face", "back"):
            face = faces.get((deck.id, card.id, side))
            if face is not None and face.key not in keys:
                keys.append(face.key)
    size = faces[(deck.id, cards[0][0].id, "face")].page_size
    w, h = card_px
    frame = Frame.fitted(size, deck.trim, w, h, (w, h))
    raw = draw_pages(faces_pdf([rendered.pages[k] for k in keys], assets), [frame] * len(keys), jobs, fmt="raw")
    return {key: Image.frombytes("RGB", (w, h), data) for key, data in zip(keys, raw)}


def _sheet(layout: Layout, images: list[Image.Image], back: Image.Image | None) -> bytes:
    sheet = Image.new("RGB", layout.sheet_px, "white")
    w, h = layout.card_px
    for index, image in enumerate(images):
        sheet.paste(image.resize((w, h)) if image.size != (w, h) else image,
                    ((index % layout.cols) * w, (index // layout.cols) * h))
    if back is not None:      # the hidden-card slot
        last = layout.cols * layout.rows - 1
        sheet.paste(back.resize((w, h)) if back.size != (w, h) else back,
                    ((last % layout.cols) * w, (last // layout.cols) * h))
    return _encode(sheet)


def _png(image: Image.Image | None, size: tuple[int, int]) -> bytes:
    if image is None:
        image = Image.new("RGB", size, (90, 90, 90))
    return _encode(image if image.size == size else image.resize(size))


def _encode(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


TRANSFORM = {"posX": 0, "posY": 1, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 180,
             "scaleX": 1, "scaleY": 1, "scaleZ": 1}


def _saved_object(deck: Deck, sheets: list, custom: dict) -> dict:
    ids, contained = [], []
    for number, sheet in enumerate(sheets, 1):
        for index, (card, copies) in enumerate(sheet):
            card_id = number * 100 + index
            name = str(card.fields.get("name") or card.fields.get("title") or card.id)
            for _ in range(copies):
                ids.append(card_id)
                contained.append({"Name": "Card", "Nickname": name, "Description": card.uid, "CardID": card_id,
                                  "CustomDeck": {str(number): custom[str(number)]}, "Transform": TRANSFORM})
    if len(contained) == 1:           # Tabletop Simulator has no deck of one: a lone card
        deck_object = {**contained[0], "Name": "CardCustom", "Nickname": f"{deck.spec.name}: {contained[0]['Nickname']}"}
    else:
        deck_object = {"Name": "DeckCustom", "Nickname": deck.spec.name, "Description": f"{len(ids)} cards",
                       "Transform": TRANSFORM, "DeckIDs": ids, "CustomDeck": custom, "ContainedObjects": contained}
    return _save([deck_object])
