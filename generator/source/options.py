"""How a pack is printed: duplex mode, the printer's back-side offset, ink saver, and what
to do with boards larger than a sheet. Defaults come from pnp.toml, flags override them.

pnp.toml (in the project folder) holds per-printer settings found with `pnp calibrate`:

    [print]
    printer = "office"

    [printers.office]
    back_offset = [0.8, -1.2]   # mm, measured on the calibration sheet
    duplex = "long"
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from generator.atomic import write_atomic
from generator.errors import PnpError, Problem
from generator.geometry import DUPLEX_MODES

SHEET_MODES = ("shared", "per-deck")

CONFIG = "pnp.toml"


@dataclass(frozen=True)
class PrintOptions:
    duplex: str = "long"
    back_offset: tuple[float, float] = (0.0, 0.0)
    ink_saver: bool = False
    fit: bool = False            # oversize boards reduced to one sheet instead of tiled
    printer: str | None = None
    sheets: str = "shared"       # "shared": decks of one size and stock fill each other's free slots; "per-deck"
    cutter: str | None = None    # a print-then-cut machine (sheets/cutters.py): its marks, area and cut files
    draft: bool = False          # a playtest print: too-coarse art is a warning, and every page says DRAFT

    @property
    def suffix(self) -> str:
        """Added to file names so a pack made for another setup never overwrites the default one."""
        parts = ([] if self.duplex == "long" else [self.duplex]) + (["inksaver"] if self.ink_saver else []) \
            + (["fit"] if self.fit else []) + ([] if self.sheets == "shared" else [self.sheets]) \
            + ([self.cutter] if self.cutter else []) + (["draft"] if self.draft else [])
        return "".join(f"-{p}" for p in parts)


def read_config(root: Path) -> dict:
    path = root / CONFIG
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise PnpError(Problem(CONFIG, line, f"invalid TOML: {exc}")) from None


def resolve(root: Path, duplex: str | None = None, back_offset: tuple[float, float] | None = None,
            ink_saver: bool = False, fit: bool = False, printer: str | None = None,
            sheets: str = "shared", cutter: str | None = None, draft: bool = False) -> PrintOptions:
    """Command-line values first, then the chosen printer's saved settings, then defaults."""
    config = read_config(root)
    section, printers = _table(config, "print"), _table(config, "printers")
    printer = printer or section.get("printer")
    if printer is not None and not isinstance(printer, str):
        raise PnpError(Problem(CONFIG, None, f"print.printer must be a printer's name, got {printer!r}"))
    saved = _table(printers, printer, f"printers.{printer}") if printer else {}
    if printer and not saved and printer not in printers:
        raise PnpError(Problem(CONFIG, None, f"no printer '{printer}' in {CONFIG}",
                               "run ./pnp calibrate --printer NAME --offset X,Y first"))
    duplex = duplex or saved.get("duplex") or section.get("duplex") or "long"
    if duplex not in DUPLEX_MODES:
        raise PnpError(Problem(CONFIG, None, f"duplex {duplex!r} is not one of {', '.join(DUPLEX_MODES)}"))
    offset = back_offset if back_offset is not None else saved.get("back_offset", (0.0, 0.0))
    if not isinstance(offset, (list, tuple)) or len(offset) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= 20
            for v in offset):
        raise PnpError(Problem(CONFIG, None, f"back_offset must be two numbers of at most 20 mm, got {offset!r}",
                               "measure it again with ./pnp calibrate"))
    if cutter and duplex == "gutterfold":
        raise PnpError(Problem("--cutter", None, "a cutter sheet cannot be folded: use --duplex long, short or "
                               "none with --cutter"))
    return PrintOptions(duplex, (float(offset[0]), float(offset[1])), ink_saver, fit, printer, sheets=sheets,
                        cutter=cutter, draft=draft)


def _table(config: dict, key: str, name: str | None = None) -> dict:
    """A [table] of pnp.toml, or {} when it is absent; anything else there is a located error."""
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise PnpError(Problem(CONFIG, None, f"{name or key} must be a table ([{name or key}]), got {value!r}"))
    return value


def save_printer(root: Path, printer: str, offset: tuple[float, float], duplex: str | None = None) -> Path:
    config = read_config(root)
    entry = config.setdefault("printers", {}).setdefault(printer, {})
    entry["back_offset"] = [round(offset[0], 2), round(offset[1], 2)]
    if duplex:
        entry["duplex"] = duplex
    config.setdefault("print", {})["printer"] = printer
    path = root / CONFIG
    write_atomic(path, tomli_w.dumps(config).encode("utf-8"))
    return path
