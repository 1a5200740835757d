"""Rebuild the bundled fonts and icons from their npm packages.

Not part of `make kit`: the results are committed under fonts/ and icons/, so a
build never needs the network. To add one emoji or character, `./pnp assets add TEXT` is
simpler (docs/authoring.md). Run this only to remake what is bundled from scratch:

    npm pack @expo-google-fonts/noto-sans-sc@0.4.3 @expo-google-fonts/noto-sans@0.4.2 \
             @fontsource/noto-sans-symbols-2@5.3.0 \
             @twemoji/svg@15.0.0        # in an empty folder, then unpack each .tgz
    .venv/bin/python tools/build_assets.py --src THAT_FOLDER

Fonts are subset to GB 2312 (every common simplified hanzi) plus every character
the project's text uses, so a designer can type ordinary Chinese without touching
this script; a character outside the subset fails the build with a clear message.
"""
from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

from fontTools.ttLib import TTFont

from generator.commands.assets import subset_font as cut_font   # the subsetting `pnp assets add` does

ROOT = Path(__file__).resolve().parent.parent
TEXT_SOURCES = ["cards", "templates", "generator", "bench/cards", "tests/fixtures"]
# Emoji the games use are drawn from Twemoji; list extra ones here to ship them too.
EXTRA_EMOJI = "🎲🪙🧙🐲⏳💰❄️🔥⭐🛒🏰⚔️🛡️🗺️🧭"


def gb2312_chars() -> set[str]:
    chars = set()
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    chars.update(chr(c) for c in range(0x20, 0x7F))
    return chars


def project_text() -> str:
    parts = []
    for sub in TEXT_SOURCES:
        for path in (ROOT / sub).rglob("*"):
            if path.suffix in {".yaml", ".html", ".css", ".md", ".py", ".j2"}:
                parts.append(path.read_text(encoding="utf-8"))
    shared = ROOT.parent / "shared"
    for path in list((shared / "seeds").glob("*.txt")) + [shared / "data/chrono-wizards/cards.csv"]:
        if path.exists():
            parts.append(path.read_text(encoding="utf-8"))
    return "".join(parts)


def subset_font(src: Path, dst: Path, text: str) -> None:
    font = TTFont(src)
    cmap = font.getBestCmap()
    wanted = {ord(c) for c in text if ord(c) in cmap}
    dst.write_bytes(cut_font(font, wanted))
    print(f"{dst.name}: {len(wanted)} characters, {dst.stat().st_size // 1024} KB")


# The Latin font of Latin-script editions: Latin-1, Latin Extended-A (Łódź, Ő, š …), punctuation,
# currency and the arrows and signs card text uses; what it lacks falls back to the next font.
LATIN_BLOCKS = [(0x20, 0x7E), (0xA0, 0x17F), (0x2000, 0x206F), (0x20A0, 0x20CF), (0x2100, 0x214F),
                (0x2190, 0x21FF), (0x2212, 0x2212), (0x2260, 0x2265)]


def latin_text() -> str:
    return "".join(chr(c) for lo, hi in LATIN_BLOCKS for c in range(lo, hi + 1))


def emoji_files(text: str, twemoji: Path) -> list[Path]:
    """Every Twemoji file whose sequence appears in the text (longest first)."""
    found = []
    names = sorted((p.stem for p in twemoji.glob("*.svg")), key=len, reverse=True)
    seqs = {"".join(chr(int(h, 16)) for h in n.split("-")): n for n in names}
    for seq, name in seqs.items():
        if seq in text or seq.replace("\ufe0f", "") in text and len(seq) > 1:
            found.append(twemoji / f"{name}.svg")
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, required=True, help="folder holding the unpacked npm packages")
    args = ap.parse_args()
    sc = next(args.src.glob("expo-google-fonts-noto-sans-sc-*/package"))
    sym = next(args.src.glob("fontsource-noto-sans-symbols-2-*/package"))
    latin = next(args.src.glob("expo-google-fonts-noto-sans-[0-9]*/package"))
    tw = next(args.src.glob("twemoji-svg-*/package"))

    text = project_text() + EXTRA_EMOJI
    fonts = ROOT / "fonts"
    fonts.mkdir(exist_ok=True)
    latin1 = "".join(chr(c) for c in range(0xA0, 0x100))
    cjk_text = "".join(gb2312_chars()) + latin1 + text + "①②③④⑤⑥⑦⑧⑨⑩×÷±−–—…·•「」『』（）【】《》〈〉→←↑↓⇒"
    subset_font(sc / "400Regular/NotoSansSC_400Regular.ttf", fonts / "NotoSansSC-Regular.ttf", cjk_text)
    subset_font(sc / "700Bold/NotoSansSC_700Bold.ttf", fonts / "NotoSansSC-Bold.ttf", cjk_text)
    # The symbol font fills gaps in Noto Sans SC (✧ ◈ ⚀ …): keep its arrows, geometric
    # shapes, miscellaneous symbols and dingbats, not its Braille or Mayan numerals.
    # Spaces and ASCII too: pango may draw the space next to a symbol with this font.
    blocks = [(0x20, 0x7E), (0xA0, 0xA0), (0x2190, 0x21FF), (0x2300, 0x23FF), (0x25A0, 0x27BF), (0x2B00, 0x2BFF)]
    symbols = "".join(chr(c) for lo, hi in blocks for c in range(lo, hi + 1))
    subset_font(sym / "files/noto-sans-symbols-2-symbols-400-normal.woff2",
                fonts / "NotoSansSymbols2-Regular.ttf", symbols)
    subset_font(latin / "400Regular/NotoSans_400Regular.ttf", fonts / "NotoSans-Regular.ttf", latin_text())
    subset_font(latin / "700Bold/NotoSans_700Bold.ttf", fonts / "NotoSans-Bold.ttf", latin_text())
    shutil.copy(latin / "LICENSE_FONT", fonts / "OFL-NotoSans.txt")
    shutil.copy(sc / "LICENSE_FONT", fonts / "OFL-NotoSansSC.txt")
    shutil.copy(sym / "LICENSE", fonts / "OFL-NotoSansSymbols2.txt")

    icons = ROOT / "icons" / "twemoji"
    icons.mkdir(parents=True, exist_ok=True)
    for old in icons.glob("*.svg"):
        old.unlink()
    for path in emoji_files(text, tw):
        svg = re.sub(r"\s+", " ", path.read_text(encoding="utf-8")).strip()
        (icons / path.name).write_text(svg + "\n", encoding="utf-8")
    print(f"icons: {len(list(icons.glob('*.svg')))} Twemoji SVGs")


if __name__ == "__main__":
    main()
