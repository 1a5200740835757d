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

import contextlib
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

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
    # --duplex given for this build (not pnp.toml's printer setting): its files are kept beside the
    # project's own mode's, as a variant's are (sheets/written.py); the pages do not depend on it
    duplex_asked: bool = field(default=False, compare=False, repr=False)

    @property
    def parts(self) -> list[str]:
        """What a file made with these settings says it is, beyond the default, in its name's order:
        the file name's suffix, and the site's labels (export/site.py), come from this one list."""
        return ([] if self.duplex == "long" else [self.duplex]) + (["inksaver"] if self.ink_saver else []) \
            + (["fit"] if self.fit else []) + ([] if self.sheets == "shared" else [self.sheets]) \
            + ([self.cutter] if self.cutter else []) + (["draft"] if self.draft else [])

    @property
    def suffix(self) -> str:
        """Added to file names so a pack made for another setup never overwrites the default one."""
        return "".join(f"-{p}" for p in self.parts)


MAX_CONFIG_BYTES = 100_000     # a few printers' settings; anything larger is not a pnp.toml

# Every key pnp.toml may hold, by table ("printers.*": each printer's own table).
KEYS = {"": ("pdfx", "print", "printers"), "print": ("duplex", "printer"),
        "printers.*": ("back_offset", "duplex"), "pdfx": ("icc",)}


def read_config(root: Path) -> dict:
    path = root / CONFIG
    if not path.is_file():
        return {}
    text = _config_text(path)
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise PnpError(Problem(CONFIG, line, f"invalid TOML: {exc}")) from None
    _unknown_keys(config, text)
    return config


def _config_text(path: Path) -> str:
    from generator.source.files import read_regular
    raw = read_regular(path, CONFIG, MAX_CONFIG_BYTES)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise PnpError(Problem(CONFIG, line, "not UTF-8 text", "save the file as UTF-8")) from None


def _unknown_keys(config: dict, text: str) -> None:
    """A typo'd key (`duplx`) would be ignored and the print come out wrong: name it, and the
    keys its table accepts."""
    tables = [("", config)] + [(name, config[name]) for name in ("print", "pdfx") if isinstance(config.get(name), dict)]
    printers = config.get("printers")
    if isinstance(printers, dict):
        tables += [(f"printers.{name}", value) for name, value in printers.items() if isinstance(value, dict)]
        for name, value in printers.items():
            if not isinstance(value, dict):
                raise PnpError(Problem(CONFIG, _key_line(text, name), f"printers.{name}: a printer's settings are a "
                                       f"table ([printers.NAME]), got {value!r}",
                                       "pnp calibrate --printer NAME --offset X,Y writes one"))
    for name, table in tables:
        accepted = KEYS["printers.*" if name.startswith("printers.") else name]
        for key in table:
            if key not in accepted:
                where = f"{name}.{key}" if name else key
                raise PnpError(Problem(CONFIG, _key_line(text, key),
                                       f"{where}: unknown key (accepted: {', '.join(accepted)})"))


def _key_line(text: str, key: str) -> int | None:
    """The line a key is first written on (tomllib keeps no lines): at a line's start, bare or
    quoted, or in a [table] header."""
    found = re.search(rf"^[ \t]*(\[+[^\]\n]*?)?[\"']?{re.escape(key)}\b", text, re.M)
    return text[: found.start()].count("\n") + 1 if found else None


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
    asked = duplex is not None
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
                        cutter=cutter, draft=draft, duplex_asked=asked)


def _table(config: dict, key: str, name: str | None = None) -> dict:
    """A [table] of pnp.toml, or {} when it is absent; anything else there is a located error."""
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise PnpError(Problem(CONFIG, None, f"{name or key} must be a table ([{name or key}]), got {value!r}"))
    return value


def save_printer(root: Path, printer: str, offset: tuple[float, float], duplex: str | None = None) -> Path:
    """Save a printer's offset in pnp.toml, its comments and layout kept (tomlkit); under a lock,
    reading the file again inside it, so two calibrations at once both land."""
    import tomlkit          # here: only a calibration writes pnp.toml (every pnp start imports this module)
    path = root / CONFIG
    with _config_lock(root):
        config = read_config(root)       # a mistake in it is said before anything is written
        _table(config, "print"), _table(config, "printers")
        document = tomlkit.parse(_config_text(path)) if path.is_file() else tomlkit.document()
        printers = document.setdefault("printers", tomlkit.table(is_super_table=True))
        entry = printers.setdefault(printer, tomlkit.table())
        entry["back_offset"] = [round(offset[0], 2), round(offset[1], 2)]
        if duplex:
            entry["duplex"] = duplex
        document.setdefault("print", tomlkit.table())["printer"] = printer
        write_atomic(path, tomlkit.dumps(document).encode("utf-8"))
    return path


@contextlib.contextmanager
def _config_lock(root: Path):
    """An exclusive lock on build/.pnp.toml.lock (a file of its own: pnp.toml itself is replaced
    by each save, so a lock on it would be a lock on a file no longer there)."""
    import fcntl
    lock = root / "build" / ".pnp.toml.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
