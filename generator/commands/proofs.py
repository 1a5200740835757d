"""`pnp build GAME --only CARD[,…]`: just those cards, fast, for a quick look.

Each card goes to build/<game>/cards/<id>.pdf (its face and, if it has one, its back, at
trim size plus bleed with TrimBox and BleedBox) and <id>.png (the face at PROOF_DPI).
Rendering goes through the face cache, so an unchanged card costs a file copy.
"""
from __future__ import annotations

import io

import pikepdf
from pikepdf import Array

from generator.source.assets import Assets
from generator.atomic import write_atomic
from generator.sheets.kit import check_game
from generator.source.words import suggest
from generator.errors import PnpError, Problem
from generator.render.fontmerge import merge_fonts
from generator.source.game import Card, Game
from generator.geometry import pt
from generator.source.project import Project
from generator.export.raster import Frame, cut_preview, draw_pages
from generator.render.cards import CardRenderer

PROOF_DPI = 200


def find_cards(game: Game, wanted: list[str]) -> list[Card]:
    """Cards named 'deck/card' or, where unambiguous, just 'card'."""
    found, problems = [], []
    for name in wanted:
        deck_id, _, card_id = name.rpartition("/")
        matches = [c for d in game.decks.values() for c in d.cards
                   if c.id == card_id and (not deck_id or d.id == deck_id)]
        if len(matches) == 1:
            found.append(matches[0])
        elif not matches:
            known = [c.uid if deck_id else c.id for d in game.decks.values() for c in d.cards]
            problems.append(Problem(f"cards/{game.id}", None, f"no card '{name}'{suggest(name, known)}"))
        else:
            problems.append(Problem(f"cards/{game.id}", None, f"'{name}' is in several decks",
                                    "write it as deck/card: " + ", ".join(c.uid for c in matches)))
    if problems:
        raise PnpError(problems)
    return found


def proof_cards(project: Project, assets: Assets, game_id: str, wanted: list[str], jobs: int = 1,
                lang: str | None = None, game: Game | None = None):
    """A PDF and a PNG of each wanted card (`--only`); `game`: the edition already loaded and checked
    (the watch's build has), else it is loaded and checked here."""
    if game is None:
        game = check_game(project, assets, game_id, lang).game
    assets = assets.edition(game.spec.language)
    cards = find_cards(game, wanted)
    renderer = CardRenderer(project, assets, game)
    faces = {}
    for card in cards:
        deck = game.decks[card.deck]
        faces[(card.uid, "face")] = renderer.face(deck, card, "face")
        if deck.spec.back:
            faces[(card.uid, "back")] = renderer.face(deck, card, "back")
    rendered = renderer.render(list(faces.values()), jobs=jobs)
    written = []
    for card in cards:
        sides = [faces[(card.uid, s)] for s in ("face", "back") if (card.uid, s) in faces]
        pdf = pikepdf.new()
        for face in sides:
            pdf.pages.append(rendered.pages[face.key])
            page = pdf.pages[-1].obj
            w, h = face.page_size
            b = face.deck.bleed
            page.TrimBox = Array([pt(b), pt(b), pt(w - b), pt(h - b)])
            page.BleedBox = Array([0, 0, pt(w), pt(h)])
        merge_fonts(pdf, assets)
        buffer = io.BytesIO()
        pdf.save(buffer, deterministic_id=True, compress_streams=True)
        base = project.build / game.id / "cards" / f"{card.uid.replace('/', '-')}{game.name_suffix}"
        write_atomic(base.with_suffix(".pdf"), buffer.getvalue())
        frame = Frame.at_dpi(sides[0].page_size, PROOF_DPI)
        image = draw_pages(buffer.getvalue(), [frame], dpi=PROOF_DPI)[0]
        deck = sides[0].deck
        if deck.corner_radius > 0:             # shown as it will be once cut
            image = cut_preview(image, deck.bleed, deck.corner_radius, PROOF_DPI)
        write_atomic(base.with_suffix(".png"), image)
        written.append(project.display(base.with_suffix(".pdf")))
    return written, rendered.fresh
