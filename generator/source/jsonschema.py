"""JSON Schemas of every YAML file in a game folder, generated from the engine's own models.

`pnp schema` writes them to schemas/ in the project; each YAML file points at its schema in a
first-line modeline (`# yaml-language-server: $schema=../../schemas/deck.schema.json`), so
an editor with yaml-language-server (VS Code's YAML extension, Neovim, Helix …) validates
and completes keys as the designer types. The build still validates on its own.
"""
from __future__ import annotations

import json
from pathlib import Path

from generator.source.schema import CatalogueFile, ClaimsFile, DeckFile, FontsFile, GameSpec, PiecesFile, TableFile

SCHEMAS = {
    "game": (GameSpec, "game.yaml: a game, its player colours and its packs"),
    "deck": (DeckFile, "a deck file: the deck's template, size and fields, then its cards"),
    "table": (TableFile, "a table file: typed rows a board or the rules read (not printed as cards)"),
    "pieces": (PiecesFile, "pieces.yaml: boards, maps, tracks and tokens drawn from data"),
    "claims": (ClaimsFile, "claims.yaml: what the rules document states, checked against the rules module"),
    "i18n": (CatalogueFile, "i18n/<lang>.yaml: a game's text in another language (one file per translator)"),
    "fonts": (FontsFile, "fonts/fonts.yaml: the bundled fonts, in fallback order"),
}
MODELINE = "# yaml-language-server: $schema={path}"


def schema_text(kind: str) -> str:
    model, title = SCHEMAS[kind]
    schema = model.model_json_schema()
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"pnp:{kind}.schema.json",
              **schema, "title": title}
    return json.dumps(schema, ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in SCHEMAS:
        path = folder / f"{kind}.schema.json"
        path.write_text(schema_text(kind), encoding="utf-8")
        written.append(path)
    return written
