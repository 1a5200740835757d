"""`make pictures`: the README's and docs' pictures, made from the shipped games so they never go stale.

    docs/img/card-sheet.png    a card sheet of cephiro-pillar's 3-player A4 pack
    docs/img/board.png         a board page of the same pack
    docs/img/gallery.png       the gallery page in a browser (Playwright driving chromium)
    docs/img/printables.png    the game's printables page of `pnp site`, in English (`tools/pictures.py site`
                               makes only this one, from what build/ holds)
    docs/img/duplex-sheet.png  a sheet of fronts beside its mirrored backs (docs/printing.md)
    docs/img/calibration.png   the calibration sheet, both sides (docs/printing.md)

It runs ./pnp like a designer would (build, gallery, calibrate), then rasterises pages at a low
resolution: small files, enough to see what pnp makes.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
GAME, PACK = "cephiro-pillar", "cephiro-pillar-3p-a4"
DPI = 50


def pnp(*args: str) -> None:
    subprocess.run([str(ROOT / "pnp"), "--project", str(ROOT), *args], check=True, stdout=subprocess.DEVNULL)


def page(pdf: Path, number: int) -> Image.Image:
    document = pdfium.PdfDocument(pdf)
    return document[number - 1].render(scale=DPI / 72).to_pil().convert("RGB")


def side_by_side(images: list[Image.Image], gap: int = 12) -> Image.Image:
    width = sum(i.width for i in images) + gap * (len(images) - 1)
    sheet = Image.new("RGB", (width, max(i.height for i in images)), "#ffffff")
    x = 0
    for image in images:
        sheet.paste(image, (x, 0))
        x += image.width + gap
    return sheet


def save(image: Image.Image, name: str) -> None:
    target = OUT / name
    image.convert("P", palette=Image.Palette.ADAPTIVE, colors=128).save(target, optimize=True)
    print(f"wrote {target.relative_to(ROOT)} ({image.width}×{image.height}, {target.stat().st_size // 1024} KB)")


def gallery_screenshot(index: Path) -> Image.Image:
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1100, "height": 760})
        tab.goto(index.as_uri())
        tab.wait_for_load_state("networkidle")
        shot = OUT / "gallery.tmp.png"
        tab.screenshot(path=str(shot))
        browser.close()
    image = Image.open(shot).convert("RGB")
    shot.unlink()
    return image.resize((image.width * 2 // 3, image.height * 2 // 3), Image.Resampling.LANCZOS)


def site_screenshot(page: Path, height: int = 1500) -> Image.Image:
    """The top of a printables page as a player sees it on a laptop: the pictures and the pack table."""
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1100, "height": height})
        tab.goto(page.as_uri())
        tab.wait_for_load_state("networkidle")
        tab.evaluate("document.fonts.ready.then(() => true)")
        shot = OUT / "printables.tmp.png"
        tab.screenshot(path=str(shot))
        browser.close()
    image = Image.open(shot).convert("RGB")
    shot.unlink()
    return image.resize((image.width * 2 // 3, image.height * 2 // 3), Image.Resampling.LANCZOS)


def site() -> None:
    pnp("site")
    save(site_screenshot(ROOT / "build" / "site" / GAME / "en.html"), "printables.png")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    pnp("build", GAME, "--players", "3", "--paper", "a4")
    pnp("gallery", GAME)
    pnp("calibrate", "--paper", "a4")
    folder = ROOT / "build" / GAME
    pdf = folder / f"{PACK}.pdf"
    pages = json.loads((folder / f"{PACK}.json").read_text(encoding="utf-8"))["pages"]
    front = next(p for p in pages if p["role"] == "cards-front")
    back = next(p for p in pages if p["role"] == "cards-back" and p.get("front_page") == front["number"])
    board = next(p for p in pages if p["role"] == "board")
    save(page(pdf, front["number"]), "card-sheet.png")
    save(page(pdf, board["number"]), "board.png")
    save(side_by_side([page(pdf, front["number"]), page(pdf, back["number"])]), "duplex-sheet.png")
    calibration = ROOT / "build" / "calibration-a4-long.pdf"
    save(side_by_side([page(calibration, 1), page(calibration, 2)]), "calibration.png")
    save(gallery_screenshot(folder / "gallery" / "index.html"), "gallery.png")
    site()


if __name__ == "__main__":
    sys.exit(site() if sys.argv[1:] == ["site"] else main())
