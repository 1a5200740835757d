"""A card's own picture: scaled to what it prints at, checked for resolution, missing files named,
and --draft for a playtest with placeholder art."""
from __future__ import annotations

import io
import os
import random
import subprocess

import pikepdf
import pytest
from PIL import Image, ImageCms

from generator.check.pdfread import images
from tests.conftest import pnp
from tests.test_inputs import make

PEOPLE = "cards/inputs/people.yaml"
ARGS = ("build", "inputs", "--players", "2", "--paper", "a4")


def _photo(path, width: int, height: int, seed: int = 1) -> None:
    """A photograph's kind of picture: smooth colour fields (not noise, not flat)."""
    rnd = random.Random(seed)
    small = Image.new("RGB", (40, 56))
    small.putdata([(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(40 * 56)])
    small.resize((width, height), Image.Resampling.BICUBIC).save(path, quality=92)


def _pages_text(pdf) -> list[str]:
    out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\f")[:-1]


def test_a_4000_px_photo_on_a_poker_card_is_scaled_to_what_it_prints_at(tmp_path):
    project = make(tmp_path / "project")
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("portrait: art/smith.jpg", "portrait: art/photo.jpg"))
    _photo(project / "cards/inputs/art/photo.jpg", 4000, 5600)
    assert (project / "cards/inputs/art/photo.jpg").stat().st_size > 1_000_000
    assert pnp(project, *ARGS).exit_code == 0
    pack = project / "build/inputs/inputs-2p-a4.pdf"
    with_photo = pack.stat().st_size
    used = [i for i in images(pikepdf.open(pack)) if i.owner == "people/smith"]
    assert len(used) == 1
    assert 300 <= used[0].dpi <= 600
    assert [round(v, 1) for v in used[0].size_mm] == [69.5, 94.9]          # the whole card with its bleed
    deck.write_text(deck.read_text().replace("portrait: art/photo.jpg", "portrait: null"))
    assert pnp(project, *ARGS).exit_code == 0
    without = pack.stat().st_size
    assert 0 < with_photo - without < 2_000_000


def test_coarse_art_stops_a_build_naming_the_card_and_draft_prints_it(tmp_path):
    project = make(tmp_path / "project")
    Image.open(project / "cards/inputs/art/baker.png").resize((410, 560)).save(project / "cards/inputs/art/baker.png")
    result = pnp(project, *ARGS)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "cards/inputs/people.yaml:14: people/baker: picture art/baker.png prints at 150 dpi (410 × 560 px show); "
        "a print needs 300 (hint: use a larger picture, or build with --draft to playtest with it)")
    assert not (project / "build/inputs/inputs-2p-a4.pdf").exists()
    draft = pnp(project, *ARGS, "--draft")
    assert draft.exit_code == 0, draft.output
    assert draft.output.startswith("warning: cards/inputs/people.yaml:14: people/baker: picture art/baker.png")
    assert "wrote build/inputs/inputs-draft-2p-a4.pdf" in draft.output or "-draft" in draft.output
    pdf = next((project / "build/inputs").glob("*draft*.pdf"))
    pages = _pages_text(pdf)
    assert "DRAFT - playtest print, not for a print shop" in pages[0]
    assert all("DRAFT" in page for page in pages)
    report = pnp(project, "preflight", str(pdf))
    assert report.exit_code == 1 and "150 dpi (needs 300)" in report.output     # a draft is not a print


def test_a_missing_or_unsupported_picture_names_each_card_and_line(tmp_path):
    project = make(tmp_path / "project")
    deck = project / PEOPLE
    text = deck.read_text().replace("portrait: art/baker.png", "portrait: art/nobody.png")
    deck.write_text(text.replace("portrait: art/smith.jpg", "portrait: art/smith.tiff"))
    result = pnp(project, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "cards/inputs/people.yaml:14: card 'baker': portrait: no picture art/nobody.png in inputs/ "
        "(paths are relative to the game folder)",
        "cards/inputs/people.yaml:15: card 'smith': portrait: art/smith.tiff: unsupported picture type "
        "(use .png, .jpg, .jpeg, .webp, .svg)"]


def test_svg_art_is_placed_as_drawn(tmp_path):
    project = make(tmp_path / "project")
    (project / "cards/inputs/art/baker.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 14"><rect width="10" height="14" fill="#c33"/></svg>')
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("art/baker.png", "art/baker.svg"))
    assert pnp(project, *ARGS).exit_code == 0
    subprocess.run(["pdftoppm", "-r", "20", "-png", "-f", "2", "-l", "2", str(project / "build/inputs/inputs-2p-a4.pdf"),
                    str(tmp_path / "sheet")], check=True)
    sheet = Image.open(next(tmp_path.glob("sheet*.png"))).convert("RGB")
    data = sheet.tobytes()
    reds = sum(1 for i in range(0, len(data), 3) if data[i] > 180 and data[i + 1] < 80 and data[i + 2] < 80)
    assert reds > 0.5 * (69.5 * 94.9) * (20 / 25.4) ** 2          # most of one card with its bleed is red


A98 = "/usr/share/color/icc/ghostscript/a98.icc"        # Adobe RGB (1998), from ghostscript


@pytest.mark.skipif(not os.path.exists(A98), reason="needs an Adobe RGB profile (ghostscript's a98.icc)")
def test_an_embedded_icc_profile_is_converted_to_srgb(tmp_path):
    project = make(tmp_path / "project")
    profile = open(A98, "rb").read()
    colour = (60, 160, 90)
    Image.new("RGB", (950, 1300), colour).save(project / "cards/inputs/art/baker.png", icc_profile=profile)
    expected = ImageCms.profileToProfile(Image.new("RGB", (1, 1), colour), ImageCms.ImageCmsProfile(io.BytesIO(profile)),
                                         ImageCms.createProfile("sRGB")).getpixel((0, 0))
    assert expected != colour
    assert pnp(project, *ARGS).exit_code == 0
    pdf = pikepdf.open(project / "build/inputs/inputs-2p-a4.pdf")
    drawn = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
             and o.get("/Width") == 950]                  # the baker's picture (none other is 950 px wide)
    assert len(drawn) == 1
    image = pikepdf.PdfImage(drawn[0]).as_pil_image().convert("RGB")
    assert all(abs(a - b) <= 2 for a, b in zip(image.getpixel((image.width // 2, 10)), expected))


def test_a_600_dpi_export_keeps_the_picture_finer_than_the_pack(tmp_path):
    """The pack keeps a large photo at 450 dpi; a shop PDF at --dpi 600 takes it at 600."""
    project = make(tmp_path / "project")
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("portrait: art/smith.jpg", "portrait: art/photo.jpg"))
    _photo(project / "cards/inputs/art/photo.jpg", 4000, 5600)
    assert pnp(project, *ARGS).exit_code == 0
    (packed,) = [i for i in images(pikepdf.open(project / "build/inputs/inputs-2p-a4.pdf")) if i.owner == "people/smith"]
    assert 449 <= packed.dpi <= 451
    for dpi, low, high in (("600", 590, 601), ("300", 440, 451)):     # the shop scales 63 mm to 2.5 in (+0.8 %)
        result = pnp(project, "export", "inputs", "--shop", "dtc", "--dpi", dpi, "--players", "2")
        assert result.exit_code == 0, result.output
        shop = [i for i in images(pikepdf.open(project / "build/inputs/inputs-2p-dtc.pdf")) if i.owner == "people/smith"]
        assert shop and all(low <= i.dpi <= high for i in shop), (dpi, [i.dpi for i in shop])


@pytest.mark.skipif(not os.path.exists(A98), reason="needs an Adobe RGB profile (ghostscript's a98.icc)")
def test_pdfx_keeps_a_pictures_own_icc_profile(tmp_path):
    """The home PDF converts an Adobe RGB picture to sRGB; the PDF/X for a shop keeps its pixels and
    tags them with the picture's own profile, for the shop's RIP to convert."""
    project = make(tmp_path / "project")
    profile = open(A98, "rb").read()
    colour = (60, 160, 90)
    Image.new("RGB", (950, 1300), colour).save(project / "cards/inputs/art/baker.png", icc_profile=profile)
    result = pnp(project, "export", "inputs", "--shop", "dtc", "--pdfx", "--players", "2")
    assert result.exit_code == 0, result.output
    pdf = pikepdf.open(project / "build/inputs/inputs-2p-dtc-pdfx.pdf")
    drawn = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
             and o.get("/Width") == 950]
    assert len(drawn) == 1
    space = drawn[0].ColorSpace
    assert space[0] == "/ICCBased" and space[1].read_bytes() == profile and int(space[1].N) == 3
    image = pikepdf.PdfImage(drawn[0]).as_pil_image().convert("RGB")
    assert image.getpixel((image.width // 2, 10)) == colour                     # its own values, unconverted
    others = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
              and o.get("/Width") != 950 and "/ColorSpace" in o and isinstance(o.ColorSpace, pikepdf.Array)]
    assert not others                  # the pictures without a profile stay sRGB (the pages' /DefaultRGB)


def test_a_picture_outside_cards_is_refused_at_its_card(tmp_path):
    project = make(tmp_path / "project")
    (project / "elsewhere.png").write_bytes((project / "cards/inputs/art/baker.png").read_bytes())
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("portrait: art/baker.png", "portrait: ../../elsewhere.png"))
    result = pnp(project, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip() == ("cards/inputs/people.yaml:14: card 'baker': portrait: ../../elsewhere.png is "
                                     "outside cards/ (keep a game's pictures in its folder, e.g. art/)")


# --- damaged, huge and unusual pictures (issue 38) -----------------------------------------------

def _drawn(project, width: int):
    pdf = pikepdf.open(project / "build/inputs/inputs-2p-a4.pdf")
    found = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
             and o.get("/Width") == width]
    assert len(found) == 1
    return pikepdf.PdfImage(found[0]).as_pil_image()


def test_16_bit_grey_art_prints_its_greys(tmp_path):
    project = make(tmp_path / "project")
    Image.new("I;16", (950, 1300), 30000).save(project / "cards/inputs/art/baker.png")
    assert pnp(project, *ARGS).exit_code == 0
    assert _drawn(project, 950).convert("L").getpixel((475, 650)) == 117       # 30000 / 256, not white


def test_a_photos_exif_orientation_is_applied(tmp_path):
    """Stored on its side (1300 × 950, red on top) with orientation 6, 'turn 90° clockwise to view':
    printed upright, 950 × 1300, red on the right."""
    project = make(tmp_path / "project")
    stored = Image.new("RGB", (1300, 950), (20, 60, 200))
    stored.paste((220, 30, 30), (0, 0, 1300, 475))
    exif = Image.Exif()
    exif[0x0112] = 6
    stored.save(project / "cards/inputs/art/baker.jpg", exif=exif.tobytes(), quality=95)
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("art/baker.png", "art/baker.jpg"))
    assert pnp(project, *ARGS).exit_code == 0
    upright = _drawn(project, 950).convert("RGB")
    assert upright.height > 1290         # upright (cropped a few pixels to the card's shape)
    right, left = upright.getpixel((900, 650)), upright.getpixel((50, 650))
    assert right[0] > 180 > right[2] and left[2] > 150 > left[0]


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that says it is width × height pixels, with a few bytes of picture."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("picture, message", [
    ("truncated", "templates/inputs/person.html:2: people/baker (face): template failed: art: art/baker.png: the picture "
                  "is damaged or cut short (image file is truncated)"),
    ("huge", "templates/inputs/person.html:2: people/baker (face): template failed: art: art/baker.png: 400,000,000 pixels "
             "is more than 100 megapixels; scale it down (450 dpi at its printed size is enough)"),
    ("large", "templates/inputs/person.html:2: people/baker (face): template failed: art: art/baker.png: 120,000,000 "
              "pixels is more than 100 megapixels; scale it down (450 dpi at its printed size is enough)"),
])
def test_a_damaged_or_huge_picture_is_one_line_naming_it(tmp_path, picture, message):
    import time
    project = make(tmp_path / "project")
    art = project / "cards/inputs/art/baker.png"
    if picture == "truncated":
        Image.effect_noise((950, 1300), 60).convert("RGB").save(art)
        art.write_bytes(art.read_bytes()[: art.stat().st_size // 2])
    else:
        art.write_bytes(_png_header_only(*((20000, 20000) if picture == "huge" else (12000, 10000))))
    started = time.monotonic()
    result = pnp(project, *ARGS)
    assert result.exit_code == 1 and time.monotonic() - started < 30
    assert message in result.output.splitlines(), result.output
    assert "Traceback" not in result.output and not (project / "build/inputs/inputs-2p-a4.pdf").exists()


def test_decoding_a_picture_is_not_counted_in_the_templates_time_budget(tmp_path, monkeypatch):
    """A large photo may take seconds to decode; the template's 2 s are for its own loops."""
    import time

    from generator.render import art
    real = art.decoded

    def slow(data, picture):
        started = time.process_time()
        while time.process_time() - started < 2.2:
            pass
        return real(data, picture)
    monkeypatch.setattr(art, "decoded", slow)
    project = make(tmp_path / "project")
    result = pnp(project, *ARGS, "--jobs", "1")
    assert result.exit_code == 0, result.output


def test_an_svg_picture_nested_too_deep_is_one_line(tmp_path):
    project = make(tmp_path / "project")
    (project / "cards/inputs/art/baker.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 14">' + "<g>" * 20000 + '<rect width="10" height="14"/>'
        + "</g>" * 20000 + "</svg>")
    deck = project / PEOPLE
    deck.write_text(deck.read_text().replace("art/baker.png", "art/baker.svg"))
    result = pnp(project, *ARGS)
    assert result.exit_code == 1 and result.output.splitlines() == [
        "templates/inputs/person.html:2: people/baker (face): template failed: art: art/baker.svg: elements nested "
        "more than 200 deep; a drawing needs a few levels"]
