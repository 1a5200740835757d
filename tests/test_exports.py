"""Print-shop images and PDF, PDF/X-4, Tabletop Simulator decks: every export of every game,
read back (image sizes, counts, names, JSON structure, page geometry)."""
from __future__ import annotations

import csv
import errno
import io
import json
from collections import Counter
import re
import zipfile
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from tests.conftest import GAMES, built, pnp
from generator.export.shops import SHOPS, ZIP_TIME, product_for
from generator.export.tts import MAX_COLS, MAX_PX, MAX_ROWS, PER_SHEET

PT_PER_IN = 72


_EXPORTED: dict[tuple, tuple[str, dict]] = {}


def _export(kit, game: str, *args: str) -> str:
    """`pnp export GAME ARGS` in the session's build of the game, once in this module: the tests that
    only read what one export wrote share it (a test about running an export again, or one failing,
    runs its own). Returns its output."""
    return _exported(kit, game, *args)[0]


def _exported(kit, game: str, *args: str) -> tuple[str, dict]:
    """The output of the export, and the Tabletop Simulator objects it wrote (name -> saved JSON),
    read as it wrote them (an export with --tts-base-url writes other URLs into the same files)."""
    key = (str(kit.project), game, args)
    if key not in _EXPORTED:
        result = pnp(kit.project, "export", game, *args)
        assert result.exit_code == 0, result.output
        saved = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (kit.folder / "tts-zh-Hans").glob("*.json")} \
            if "--tts" in args else {}
        _EXPORTED[key] = (result.output, saved)
    return _EXPORTED[key]


def _pack_counts(kit) -> dict:
    """deck -> {card id: copies} of the pack an export takes, from the manifest the build wrote."""
    return {c["id"]: {card["id"].split("/")[1]: card["copies"] for card in c["cards"]}
            for c in kit.largest_manifest()["components"] if c["kind"] == "deck"}


# Every game to The Game Crafter; MakePlayingCards' size for two of them. The three games' decks are all
# euro-poker with 3 mm of bleed, so a shop's product and frame are the same computation in each game; what
# a game brings (its copies, its pieces and reference sheets left out, its rulebook) is read in its tgc zip.
# reverse-wizard's mpc zip (the heaviest export here: 185 designs) took and left out the same decks as its
# tgc zip, its images differing only by the shop's pixel size, which cephiro-pillar and seven-nights prove.
SHOP_CASES = [(game, "tgc", (825, 1125)) for game in GAMES] + \
    [(game, "mpc", (822, 1122)) for game in GAMES if game != "reverse-wizard"]


@pytest.mark.parametrize("game,shop,size", SHOP_CASES)
def test_shop_zip_has_every_copy_at_the_shop_size(tmp_path_factory, game, shop, size):
    kit = built(tmp_path_factory, game)
    _export(kit, game, "--shop", shop)
    archive = zipfile.ZipFile(next(kit.folder.glob(f"{game}-*-{shop}-300dpi-zh-Hans.zip")))
    names = archive.namelist()
    counts = _pack_counts(kit)
    poker = {d for d in counts if any(re.match(rf"{d}-.*\.png$", n) for n in names)}
    assert poker, "no deck exported"
    for deck in poker:
        for card, copies in counts[deck].items():
            fronts = [n for n in names if n.startswith(f"{deck}-{card}-") and not n.endswith("-back.png")
                      and re.fullmatch(rf"{re.escape(deck)}-{re.escape(card)}-\d+\.png", n)]
            assert len(fronts) == copies, (deck, card)
    for name in [n for n in names if n.endswith(".png")][:12]:
        assert Image.open(io.BytesIO(archive.read(name))).size == size
    rows = list(csv.DictReader(io.StringIO(archive.read("counts.csv").decode("utf-8"))))
    cards = [r for r in rows if r["kind"] == "card"]
    assert sum(int(r["count"]) for r in cards) == sum(sum(counts[d].values()) for d in poker)
    assert {r["product"] for r in cards} == {"poker"}
    # every board and token the shop cannot print is on the order sheet, with why, and not in the zip
    pieces = {c["id"]: c["count"] for c in kit.largest_manifest()["components"] if c["kind"] == "piece"}
    left = {r["card"]: r for r in rows if r["kind"] == "piece"}
    assert set(left) == set(pieces) and all("print it from the pack" in r["note"] for r in left.values())
    assert {k: int(r["count"]) for k, r in left.items()} == pieces
    assert not [n for n in names if n.startswith("piece-")]
    _check_rulebook(kit, archive.read("rulebook.pdf"))
    (rulebook,) = [r for r in rows if r["kind"] == "rulebook"]
    pages = _rulebook(kit)["count"]
    assert rulebook["fronts"] == "rulebook.pdf" and rulebook["note"].startswith(f"{pages} pages of 148 × 210 mm")


def _rulebook(kit) -> dict:
    """The rulebook component of the pack an export takes, from the manifest the build wrote."""
    return next(c for c in kit.largest_manifest()["components"] if c["kind"] == "rulebook")


def _lowest_text(page) -> str:
    """The text drawn lowest on a page: its folio."""
    parts = []
    page.extract_text(visitor_text=lambda text, cm, tm, *_: parts.append((tm[5] * cm[3] + cm[5], text.strip()))
                      if text.strip() else None)
    return min(parts)[1]


def _check_rulebook(kit, data: bytes) -> None:
    """An export's rulebook: the pack's own pages, one per PDF page at A5, in reading order, with bookmarks,
    every font embedded."""
    from pypdf import PdfReader
    component = _rulebook(kit)
    pdf = pikepdf.open(io.BytesIO(data))
    assert len(pdf.pages) == component["count"]
    assert {tuple(round(float(v) / PT_PER_IN * 25.4, 1) for v in p.mediabox[2:]) for p in pdf.pages} == {(148.0, 210.0)}
    folios = [_lowest_text(page) for page in PdfReader(io.BytesIO(data)).pages]
    assert folios == [str(n) for n in range(1, len(pdf.pages) + 1)]        # in reading order
    with pdf.open_outline() as outline:
        (title,) = outline.root                                   # the title, its chapters under it
        assert len(title.children) >= 5 and title.destination[0] == pdf.pages[0].obj
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor":
            assert any(k in obj for k in ("/FontFile", "/FontFile2", "/FontFile3")), obj.get("/FontName")


def test_reference_sheets_are_left_out_of_shop_orders_with_a_note(cephiro_built):
    output = _export(cephiro_built, "cephiro-pillar", "--shop", "tgc")       # test_shop_zip's export
    assert "left out deck 'reference' (速查卡): The Game Crafter prints no card of 95 × 190 mm" in output
    archive = zipfile.ZipFile(cephiro_built.folder / "cephiro-pillar-5p-tgc-300dpi-zh-Hans.zip")
    rows = list(csv.DictReader(io.StringIO(archive.read("counts.csv").decode("utf-8"))))
    (row,) = [r for r in rows if r["kind"] == "deck"]                   # on the order sheet too, with why
    copies = sum(c["copies"] for c in next(c for c in cephiro_built.largest_manifest()["components"]
                                          if c["id"] == "reference")["cards"])
    assert (row["deck"], int(row["count"])) == ("reference", copies)
    assert row["note"] == "The Game Crafter prints no card of 95 × 190 mm: print it from the pack"


def test_png_export_is_each_card_at_its_own_size_and_dpi(cephiro_built):
    result = pnp(cephiro_built.project, "export", "cephiro-pillar", "--shop", "png", "--dpi", "600")
    assert result.exit_code == 0, result.output
    archive = zipfile.ZipFile(cephiro_built.folder / "cephiro-pillar-5p-png-600dpi-zh-Hans.zip")
    power = Image.open(io.BytesIO(archive.read("power-red-1-1.png")))
    assert power.size == (round(69 / 25.4 * 600), round(94 / 25.4 * 600))     # 63 × 88 + 3 mm bleed
    assert round(power.info["dpi"][0]) == 600
    reference = Image.open(io.BytesIO(archive.read("reference-flow-1.png")))
    assert reference.size == (round(101 / 25.4 * 600), round(196 / 25.4 * 600))
    assert "reference-flow-1-back.png" not in archive.namelist()         # single-sided
    assert "power-red-1-1-back.png" in archive.namelist()
    # every piece copy too, at its printed size (per-player pieces in each player's colour)
    pieces = {c["id"]: (c["count"], c["size_mm"]) for c in cephiro_built.largest_manifest()["components"]
              if c["kind"] == "piece"}
    for piece, (count, (w, h)) in pieces.items():
        fronts = [n for n in archive.namelist() if re.fullmatch(rf"piece-{piece}-\d+\.png", n)]
        assert len(fronts) == count, piece
        size = Image.open(io.BytesIO(archive.read(fronts[0]))).size
        assert size == (round(w / 25.4 * 600), round(h / 25.4 * 600)), piece
    boards = [archive.read(f"piece-record-board-{n}.png") for n in range(1, 6)]
    assert len(set(boards)) == 5                                          # five colours, five images


def test_shop_products_match_within_two_millimetres():
    assert product_for("tgc", (63, 88)).name == "poker"
    assert product_for("mpc", (63.5, 88.9)).name == "poker"
    assert product_for("dtc", (57, 89)).name == "bridge"
    assert product_for("tgc", (95, 126)) is None
    assert {p.size_px(300) for p in SHOPS["tgc"] if p.name == "poker"} == {(825, 1125)}



# --- streamed to disk, in place in one step ------------------------------------------------------

def _mpc_zip(kit, again: bool = False) -> Path:
    """The mpc zip of cephiro: test_shop_zip's export, or (again) one made now."""
    if again:
        result = pnp(kit.project, "export", "cephiro-pillar", "--shop", "mpc")
        assert result.exit_code == 0, result.output
    else:
        _export(kit, "cephiro-pillar", "--shop", "mpc")
    return kit.folder / "cephiro-pillar-5p-mpc-300dpi-zh-Hans.zip"


def test_the_streamed_zip_is_the_one_zipfile_makes_in_memory(cephiro_built):
    """Written to disk entry by entry, the zip holds the very bytes zipfile gives for the same entries
    in memory (as the export wrote it before it streamed), and the same bytes on every run."""
    path = _mpc_zip(cephiro_built)
    data = path.read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert {info.date_time for info in archive.infolist()} == {ZIP_TIME}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as again:
        for info in archive.infolist():
            entry = zipfile.ZipInfo(info.filename, info.date_time)
            entry.compress_type = info.compress_type
            again.writestr(entry, archive.read(info))
    assert buffer.getvalue() == data
    assert _mpc_zip(cephiro_built, again=True).read_bytes() == data
    # every copy of a card is the one image's bytes
    copies = [archive.read(n) for n in archive.namelist() if re.fullmatch(r"power-red-2-\d+\.png", n)]
    assert len(copies) > 1 and len(set(copies)) == 1


@pytest.mark.parametrize("failure,code", [(OSError(errno.ENOSPC, "No space left on device"), 1),
                                          (KeyboardInterrupt(), 130)])
def test_an_export_that_fails_mid_zip_leaves_the_previous_zip(cephiro_built, monkeypatch, failure, code):
    """A full disk (or Ctrl-C) after a few images: the zip at the target is still the previous one,
    whole, and no temporary file is left beside it. While the new zip is written the target is the
    previous one too, so a build killed at any point leaves it."""
    from generator.export import shops
    path = _mpc_zip(cephiro_built)
    previous = path.read_bytes()
    written, entry = [], shops._entry

    def failing(archive, name, data, *args):
        if len(written) == 5:
            assert path.read_bytes() == previous
            raise failure
        written.append(name)
        entry(archive, name, data, *args)

    monkeypatch.setattr(shops, "_entry", failing)
    result = pnp(cephiro_built.project, "export", "cephiro-pillar", "--shop", "mpc")
    assert result.exit_code == code, result.output
    assert len(written) == 5
    assert path.read_bytes() == previous
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_writing_replaces_the_file_only_when_the_block_ends_well(tmp_path):
    from generator.atomic import writing
    target = tmp_path / "out" / "kit.zip"
    with writing(target, durable=False) as handle:
        handle.write(b"first")
    assert target.read_bytes() == b"first" and target.stat().st_mode & 0o777 == 0o644
    with pytest.raises(ValueError):
        with writing(target) as handle:
            handle.write(b"half of the second")
            assert target.read_bytes() == b"first"
            raise ValueError("the build failed")
    assert target.read_bytes() == b"first"
    assert [p.name for p in target.parent.iterdir()] == ["kit.zip"]
    with writing(target) as handle:
        handle.write(b"second")
    assert target.read_bytes() == b"second" and [p.name for p in target.parent.iterdir()] == ["kit.zip"]

def test_dtc_pdf_is_one_card_per_page_with_its_back_after_it(cephiro_built):
    result = pnp(cephiro_built.project, "export", "cephiro-pillar", "--shop", "dtc")
    assert result.exit_code == 0, result.output
    pdf = pikepdf.open(cephiro_built.folder / "cephiro-pillar-5p-dtc-zh-Hans.pdf")
    assert len(pdf.pages) == 2 * 84                       # 40 power + 8 trials + 36 oaths, each with a back
    for page in pdf.pages[:6]:
        media = [float(v) for v in page.MediaBox]
        trim = [float(v) for v in page.TrimBox]
        assert media == [0, 0, 2.75 * PT_PER_IN, 3.75 * PT_PER_IN]
        assert [round(v, 2) for v in trim] == [9, 9, 189, 261]          # 2.5 × 3.5 in, 1/8 in bleed
    forms = [page.Resources.XObject.Card for page in pdf.pages[:6]]
    # red-1 (one copy), then two copies of red-2, each followed by the red back they all share
    assert [str(f.PnpId) for f in forms[0::2]] == ["power/red-1", "power/red-2", "power/red-2"]
    assert forms[1].objgen == forms[3].objgen == forms[5].objgen != forms[0].objgen


def test_pdfx_has_output_intent_metadata_and_managed_rgb(cephiro_built):
    args = ("export", "cephiro-pillar", "--shop", "dtc", "--pdfx")
    assert pnp(cephiro_built.project, *args).exit_code == 0
    path = cephiro_built.folder / "cephiro-pillar-5p-dtc-pdfx-zh-Hans.pdf"
    first = path.read_bytes()
    pdf = pikepdf.open(path)
    assert pdf.pdf_version >= "1.6"
    intent = pdf.Root.OutputIntents[0]
    assert intent.S == "/GTS_PDFX" and int(intent.DestOutputProfile.N) == 4
    xmp = pdf.Root.Metadata.read_bytes().decode("utf-8")
    assert "<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>" in xmp
    assert str(pdf.docinfo.Trapped) == "/False"
    for page in pdf.pages:
        assert "/DefaultRGB" in page.Resources.ColorSpace
        assert "/DefaultRGB" in page.Resources.XObject.Card.Resources.ColorSpace
    assert pnp(cephiro_built.project, *args).exit_code == 0
    assert path.read_bytes() == first                                   # fixed dates and ids


def test_pdfx_refuses_a_profile_that_is_not_cmyk(cephiro_built, tmp_path):
    srgb = tmp_path / "srgb.icc"
    srgb.write_bytes((Path(pikepdf.__file__).parent / "pdfa/data/sRGB.icc").read_bytes())
    result = pnp(cephiro_built.project, "export", "cephiro-pillar", "--shop", "dtc", "--pdfx", "--icc", str(srgb))
    assert result.exit_code == 1
    assert f"{srgb}: an ICC profile of class mntr for RGB , not a CMYK printer profile" in result.output


def test_pdfx_needs_the_dtc_pdf(cephiro_built):
    result = pnp(cephiro_built.project, "export", "cephiro-pillar", "--shop", "tgc", "--pdfx")
    assert result.exit_code == 2 and "--pdfx applies to the PDF of --shop dtc" in result.output


# --- Tabletop Simulator ------------------------------------------------------------------------

# One Tabletop Simulator export per game, read by every test about the export: two games' files
# addressed under a hosted copy of their folder, seven-nights' by the local file URLs the default
# writes.
HOSTED = ("--tts", "--tts-base-url", "https://example.org/kit/tts")


def _tts(game: str) -> tuple[str, ...]:
    """The arguments of the game's Tabletop Simulator export."""
    return ("--tts",) if game == "seven-nights" else HOSTED


def _tts_base(kit, game: str) -> str:
    """The address its saved objects give the folder of exported files under."""
    return (kit.folder / "tts-zh-Hans").resolve().as_uri() if game == "seven-nights" else HOSTED[-1]


def _local(kit, url: str) -> Path:
    """The exported file a saved object's URL names."""
    if url.startswith("file://"):
        return Path(url.removeprefix("file://"))
    assert url.startswith(HOSTED[-1] + "/")
    return kit.folder / "tts-zh-Hans" / url.rsplit("/", 1)[1]


@pytest.mark.parametrize("game", GAMES)
def test_tts_decks_load_their_sheets_with_every_copy(tmp_path_factory, game):
    kit = built(tmp_path_factory, game)
    _, tts = _exported(kit, game, *_tts(game))
    counts = _pack_counts(kit)
    for deck, cards in counts.items():
        saved = tts[deck]
        obj = saved["ObjectStates"][0]
        copies = sum(cards.values())
        if copies == 1:
            assert obj["Name"] == "CardCustom"
            continue
        assert obj["Name"] == "DeckCustom"
        assert len(obj["DeckIDs"]) == len(obj["ContainedObjects"]) == copies
        sheets = obj["CustomDeck"]
        assert len(sheets) == -(-len(cards) // PER_SHEET)
        for key, sheet in sheets.items():
            assert sheet["NumWidth"] <= MAX_COLS and sheet["NumHeight"] <= MAX_ROWS
            if game == "seven-nights":
                assert sheet["FaceURL"].startswith("file://") and sheet["BackURL"].startswith("file://")
            face, back = _local(kit, sheet["FaceURL"]), _local(kit, sheet["BackURL"])
            assert face.is_file() and back.is_file()
            w, h = Image.open(face).size
            assert w <= MAX_PX and h <= MAX_PX
            assert w % sheet["NumWidth"] == 0 and h % sheet["NumHeight"] == 0
            used = [i for i in obj["DeckIDs"] if i // 100 == int(key)]
            assert max(i % 100 for i in used) < sheet["NumWidth"] * sheet["NumHeight"] - 1   # the last slot is the back
        names = {c["Nickname"] for c in obj["ContainedObjects"]}
        assert len(names) >= 1 and all(names)


@pytest.mark.parametrize("game", GAMES)
def test_tts_saved_object_carries_every_deck_board_and_token(tmp_path_factory, game):
    """One saved object for the whole pack: every deck, and every piece copy at its printed size, every
    file addressed where the export was told (hosted, or seven-nights' local files)."""
    kit = built(tmp_path_factory, game)
    _, tts = _exported(kit, game, *_tts(game))                 # test_tts_decks' export
    base = _tts_base(kit, game)
    objects = tts[game]["ObjectStates"]
    decks = [o for o in objects if o["Name"] in ("DeckCustom", "CardCustom")]
    assert len(decks) == len(_pack_counts(kit))
    pieces = [o for o in objects if o["Name"] in ("Custom_Tile", "Custom_Token")]
    components = [c for c in kit.largest_manifest()["components"] if c["kind"] == "piece"]
    assert Counter(o["Description"] for o in pieces) == {c["id"]: c["count"] for c in components}
    sizes = {c["id"]: c["size_mm"] for c in components}
    for obj in pieces:
        w_mm, h_mm = sizes[obj["Description"]]
        assert obj["Transform"]["scaleX"] == pytest.approx(w_mm / 25.4 / 2, abs=1e-3)
        if obj["Name"] == "Custom_Tile":
            assert obj["Transform"]["scaleZ"] == pytest.approx(h_mm / 25.4 / 2, abs=1e-3)
        assert (obj["Name"] == "Custom_Token") == (max(w_mm, h_mm) <= 60)
        for key in ("ImageURL", "ImageSecondaryURL"):
            url = obj["CustomImage"][key]
            if url:
                assert url.startswith(f"{base}/piece-")
                assert (kit.folder / "tts-zh-Hans" / url.rsplit("/", 1)[1]).is_file()
    for deck in decks:
        for sheet in (deck.get("CustomDeck") or {}).values():
            assert sheet["FaceURL"].startswith(f"{base}/")
    spots = {o["Transform"]["posX"] for o in decks}
    assert len(spots) == len(decks) and not spots & {o["Transform"]["posX"] for o in pieces}
    (book,) = [o for o in objects if o["Name"] == "Custom_PDF"]        # the rules, on the table with the pack
    assert book["CustomPDF"]["PDFUrl"] == f"{base}/rulebook.pdf"
    _check_rulebook(kit, (kit.folder / "tts-zh-Hans" / "rulebook.pdf").read_bytes())


def test_a_deck_of_more_than_69_designs_takes_two_sheets(wizard_built):
    _, tts = _exported(wizard_built, "reverse-wizard", *HOSTED)           # test_tts_decks' export
    saved = tts["common"]
    deck = saved["ObjectStates"][0]
    assert set(deck["CustomDeck"]) == {"1", "2"}
    assert deck["CustomDeck"]["1"]["NumWidth"] * deck["CustomDeck"]["1"]["NumHeight"] == 70
    assert {i // 100 for i in deck["DeckIDs"]} == {1, 2}


def test_tts_sheet_shows_the_card_faces_at_trim(cephiro_built):
    """The first slot of the power sheet is red-1 at trim: its top-left pixel is the red pattern
    of the card's face, not white paper or bleed past the cut."""
    _export(cephiro_built, "cephiro-pillar", *HOSTED)                      # test_tts_decks' export
    sheet = Image.open(cephiro_built.folder / "tts-zh-Hans/power-1.png").convert("RGB")
    r, g, b = sheet.getpixel((3, 3))
    assert r > 150 and g < 110 and b < 110
