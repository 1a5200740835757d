"""A card's own picture: `{{ art(card.art) }}` in a face template.

The picture (PNG, JPEG, WebP or SVG, a path relative to the game folder) fills a box: by
default the whole card with its bleed, or the trim, or any width × height in mm; `fit="cover"`
fills the box and crops what overhangs, around a focal point (`focus="50% 30%"`, as CSS's
object-position), `fit="contain"` shows all of it inside the box. A raster picture is cropped
to what shows, converted to sRGB (an embedded ICC profile is respected; a PDF/X keeps it) and,
when it has more than MAX_DPI pixels per inch at its printed size, scaled down to TARGET_DPI (an
export at a finer --dpi keeps up to that many), so a 4000 px photo on a poker card costs a few
hundred KB, not 40 MB. The result is written once to
build/.cache/art/, named by the hash of the source and of how it is used, with fixed encoder
settings, so the same input gives the same bytes. Below MIN_DPI the face is noted as too coarse
to print; the build stops on it unless it is a --draft.
"""
from __future__ import annotations

import functools
import hashlib
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from generator.atomic import make_room, write_atomic
from generator.source import reads
from generator.source.schema import IMAGE_TYPES

MIN_DPI, TARGET_DPI, MAX_DPI = 300, 450, 600
MAX_PICTURE_PIXELS = 100_000_000    # an A2 poster at 300 dpi is 35 million; more is a mistake or a bomb
MAX_PICTURE_BYTES = 200_000_000
JPEG_QUALITY = 90
_FOCUS = re.compile(r"^\s*(-?\d+(?:\.\d+)?)%\s+(-?\d+(?:\.\d+)?)%\s*$")


@dataclass(frozen=True)
class Coarse:
    """A picture printed below MIN_DPI on one face."""
    card: object
    picture: str
    pixels: tuple[int, int]
    dpi: float


class ArtPlacer:
    def __init__(self, root: Path, game_folder: Path, cache: Path, dpi: int | None = None,
                 keep_profiles: bool = False):
        """`dpi`: what the output needs, for an export finer than print (--dpi 600): a picture is kept
        up to that and scaled down to it, rather than to TARGET_DPI. `keep_profiles` (PDF/X): a
        picture with an ICC profile keeps its own colours and profile (`profiles` maps each such
        prepared file to it, for export/pdfx.py to tag the image with), rather than turning sRGB."""
        self.root, self.game_folder, self.cache = root, game_folder, cache
        self.keep_profiles = keep_profiles
        self.profiles: dict[str, bytes] = {}      # prepared picture (its URL) -> the ICC profile it keeps
        self.target = max(TARGET_DPI, dpi or 0)
        self.ceiling = max(MAX_DPI, dpi or 0)
        self.coarse: list[Coarse] = []
        self.current = None           # the card being rendered (the engine's, not the template's copy)
        self._made: dict[tuple, tuple[str, float, tuple[int, int]]] = {}

    def place(self, context, picture: str, fit: str = "cover", focus: str = "50% 50%", box: str = "bleed",
              width: float | None = None, height: float | None = None, cls: str = "") -> Markup:
        """The <img> for a picture in its box (see the module's docstring)."""
        if fit not in ("cover", "contain"):
            raise ValueError(f"art: fit must be 'cover' or 'contain', got {fit!r}")
        fx, fy = _focus(focus)
        trim, bleed = context.get("trim"), context.get("bleed", 0)
        left, top, w, h = _box(box, trim, bleed, width, height)
        path = self._source(picture)
        if path.suffix.lower() == ".svg":
            _check_svg(path, picture)
            url, dpi, pixels = path.relative_to(self.root).as_posix(), math.inf, (0, 0)
        else:
            url, dpi, pixels = self._raster(path, picture, fit, fx, fy, w, h)
        card = self.current
        if dpi < MIN_DPI and card is not None and not any(c.card is card and c.picture == picture for c in self.coarse):
            self.coarse.append(Coarse(card, picture, pixels, dpi))
        where = f"position: absolute; left: {left:g}mm; top: {top:g}mm; " if left is not None else ""
        # A cropped raster is exactly the box; `fit` and `focus` still say how an SVG sits in it.
        style = (f"{where}display: block; width: {w:g}mm; height: {h:g}mm; object-fit: {fit}; "
                 f"object-position: {fx * 100:g}% {fy * 100:g}%")
        return Markup(f'<img class="card-art {escape(cls)}" src="{escape(url)}" alt="" style="{style}">')

    def _source(self, picture: str) -> Path:
        path = (self.game_folder / str(picture)).resolve()
        reads.looked_up(path)
        if path.suffix.lower() not in IMAGE_TYPES:
            raise ValueError(f"art: {picture}: unsupported picture type (use {', '.join(IMAGE_TYPES)})")
        if not path.is_relative_to(self.game_folder.parent.resolve()) or not path.is_file():
            raise ValueError(f"art: no picture {picture} in the game folder")
        return path

    def _raster(self, path: Path, picture: str, fit: str, fx: float, fy: float, w: float, h: float):
        from generator.errors import PnpError
        from generator.source.files import read_regular
        try:
            data = read_regular(path, picture, MAX_PICTURE_BYTES)
        except PnpError as exc:
            raise ValueError(f"art: {exc.problems[0].message.replace('file is', f'{picture} is')}") from None
        reads.note(path, data)
        key = (hashlib.sha256(data).hexdigest(), fit, fx, fy, w, h, self.target, self.ceiling, self.keep_profiles,
               _method())
        if key not in self._made:
            from generator.check.expr import outside_budget
            with outside_budget():          # the picture's decoding is not the template's time
                self._made[key] = self._prepare(data, key, picture)
        return self._made[key]

    def _prepare(self, data: bytes, key: tuple, picture: str) -> tuple[str, float, tuple[int, int]]:
        """(URL of the prepared picture, its dpi as printed, the source pixels that show)."""
        from PIL import Image
        _, fit, fx, fy, w, h, target, ceiling, keep, _ = key
        image = decoded(data, picture)
        mm_per_px = (max if fit == "cover" else min)(w / image.width, h / image.height)
        if fit == "cover":                    # only what shows is kept
            vw, vh = min(image.width, round(w / mm_per_px)), min(image.height, round(h / mm_per_px))
            x, y = round((image.width - vw) * fx), round((image.height - vh) * fy)
            image = image.crop((x, y, x + vw, y + vh))
        dpi = 25.4 / mm_per_px
        shown = image.size
        profile = image.info.get("icc_profile") if keep else None
        image = _own_colours(image) if profile else _srgb(image)
        if dpi > ceiling:
            scale = target / dpi
            image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                 Image.Resampling.LANCZOS)
        photo = image.mode in ("RGB", "CMYK") and Image.open(io.BytesIO(data)).format in ("JPEG", "WEBP")
        name = hashlib.sha256(repr(key).encode()).hexdigest()[:32] + (".jpg" if photo else ".png")
        path = self.cache / name
        out = io.BytesIO()
        extra = {"icc_profile": profile} if profile else {}
        if photo:
            image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=False, progressive=False, **extra)
        else:
            image.save(out, "PNG", compress_level=6, **extra)
        if not _holds(path, out.getvalue()):     # a prepared file damaged since is made again
            make_room(path)                      # (its folder, or the file, replaced by something else)
            write_atomic(path, out.getvalue(), durable=False)
        url = path.relative_to(self.root).as_posix()
        if profile:
            self.profiles[url] = profile
        return url, min(dpi, target) if dpi > ceiling else dpi, shown


def _check_svg(path: Path, picture: str) -> None:
    """An SVG picture is read as a bounded regular file and nested a sane depth (WeasyPrint draws
    a 20,000-deep one as nothing, and the face with it)."""
    from generator.errors import PnpError
    from generator.source.assets import svg_depth_problem
    from generator.source.files import read_regular
    try:
        data = read_regular(path, picture, MAX_PICTURE_BYTES)
    except PnpError as exc:
        raise ValueError(f"art: {picture}: {exc.problems[0].message}") from None
    reads.note(path, data)
    problem = svg_depth_problem(data)
    if problem:
        raise ValueError(f"art: {picture}: {problem}")


def decoded(data: bytes, picture: str):
    """The picture's pixels, upright (a phone photo's EXIF orientation applied) and 8 bits a
    channel; ValueError, naming the picture, for one too large to decode (its size is read from
    its header first) or damaged. A picture cut short is an error here whatever WeasyPrint has
    set for its own images (it lets Pillow load truncated files, process-wide)."""
    import warnings

    from PIL import Image, ImageFile, ImageOps
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    Image.MAX_IMAGE_PIXELS = MAX_PICTURE_PIXELS     # Pillow's own check, from the header, before decoding
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
        image.load()
        image = ImageOps.exif_transpose(image)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = f"{int(found.group(1)):,} pixels" if found else "its size"
        raise ValueError(f"art: {picture}: {pixels} is more than {MAX_PICTURE_PIXELS // 1_000_000} megapixels; "
                         "scale it down (450 dpi at its printed size is enough)") from None
    except Image.UnidentifiedImageError:
        raise ValueError(f"art: {picture}: not a picture in a format its name says (PNG, JPEG or WebP)") from None
    except (OSError, SyntaxError, EOFError, ValueError) as exc:
        raise ValueError(f"art: {picture}: the picture is damaged or cut short ({exc})") from None
    if image.mode.startswith("I"):          # 16-bit grey: 0–65535, which an 8-bit conversion clips to white
        image = image.convert("I").point(lambda v: v / 256).convert("L")
    return image


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


@functools.cache
def _method() -> str:
    """This module and Pillow: a prepared picture made another way is another file."""
    from PIL import __version__ as pillow
    return hashlib.sha256(Path(__file__).read_bytes() + pillow.encode()).hexdigest()[:16]


def _own_colours(image):
    """The picture in its own colour space (RGB, CMYK or grey), for its ICC profile to describe."""
    if image.mode in ("RGB", "RGBA", "CMYK", "L", "LA"):
        return image
    return image.convert("RGBA" if "A" in image.getbands() else "RGB")


def _srgb(image):
    """RGB (or RGBA) in sRGB: an embedded ICC profile is converted from, not dropped."""
    from PIL import ImageCms
    profile = image.info.get("icc_profile")
    alpha = "A" in image.getbands()
    mode = "RGBA" if alpha else "RGB"
    if profile:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            if image.mode not in ("RGB", "RGBA", "CMYK", "L"):
                image = image.convert(mode)
            converted = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"),
                                                  outputMode=mode if image.mode != "CMYK" else "RGB")
            if converted is not None:
                image = converted
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass                      # an unreadable profile: the pixels as they are
    if image.mode != mode:
        image = image.convert(mode)
    image.info.pop("icc_profile", None)
    return image


def _focus(focus: str) -> tuple[float, float]:
    match = _FOCUS.match(str(focus))
    if not match:
        raise ValueError(f"art: focus is two percentages like '50% 30%', got {focus!r}")
    return tuple(min(100.0, max(0.0, float(v))) / 100 for v in match.groups())


def _box(box: str, trim, bleed: float, width, height):
    """(left, top, width, height) in mm on the face's page; left is None for a box the
    template places itself (width and height given)."""
    if width is not None or height is not None:
        if not width or not height:
            raise ValueError("art: give both width and height (mm), or neither")
        return None, None, float(width), float(height)
    tw, th = trim["width"], trim["height"]
    if box == "bleed":
        return 0.0, 0.0, tw + 2 * bleed, th + 2 * bleed
    if box == "trim":
        return bleed, bleed, tw, th
    raise ValueError(f"art: box is 'bleed' or 'trim' (or give width and height), got {box!r}")
