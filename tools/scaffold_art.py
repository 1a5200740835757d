"""Draw generator/scaffold/cards/art/lantern.png, the scaffold's example card art (run once; committed).

Flat shapes in a small palette, so the file is a few KB, at 300+ dpi for its 51.5 × 34 mm window.
"""
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "generator/scaffold/cards/art/lantern.png"


def main() -> None:
    image = Image.new("RGB", (640, 430), (43, 35, 80))
    draw = ImageDraw.Draw(image)
    for i in range(0, 430, 43):
        draw.rectangle((0, i, 640, i + 20), fill=(52, 44, 96))
    draw.line((320, 0, 320, 90), fill=(244, 210, 122), width=8)
    draw.rounded_rectangle((230, 90, 410, 340), radius=60, fill=(192, 57, 43))
    for y in (150, 210, 270):
        draw.line((240, y, 400, y), fill=(150, 40, 30), width=6)
    draw.rectangle((270, 340, 370, 370), fill=(244, 210, 122))
    draw.ellipse((290, 180, 350, 250), fill=(250, 230, 160))
    image.quantize(16).save(OUT, optimize=False, compress_level=9)


if __name__ == "__main__":
    main()
