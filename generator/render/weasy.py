"""WeasyPrint, loaded once and quickly.

A one-card rebuild spends more time loading WeasyPrint than drawing the card, so its import
is trimmed three ways, none of which changes a byte it draws:

- At import WeasyPrint looks for pango, harfbuzz and friends under several names; for each
  name without a full soname cffi asks ctypes.util.find_library, which runs `ldconfig -p`
  (22 times: 0.16 s of every start). The sonames it tries next (libpango-1.0.so.0 …) load
  directly, so the lookup is skipped while it imports; if that finds nothing, it is imported
  again the ordinary way.
- Its C declarations (weasyprint/text/ffi.py, 450 lines) are parsed by pycparser on every
  start, and every C type it names at run time (`ffi.new("PangoRectangle *")`) again. cffi's
  "out-of-line ABI mode" does that parsing once and writes the result as a small Python module;
  `_precompiled_ffi` keeps that module in this package's __pycache__ (like bytecode, named by
  a hash of the declarations and cffi's version) and hands it to WeasyPrint in place of a fresh
  FFI. Anything unexpected falls back to the ordinary parse.
- fontTools' subsetter (with lxml, 0.1 s) serves WeasyPrint only without libharfbuzz-subset,
  and its variable-font instancer (0.1 s) only for variable fonts; each loads when first used.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes.util
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile
import types
import warnings
from pathlib import Path

from generator.processes import at_helper_exit

# Modules WeasyPrint imports at start-up but uses only for fonts the bundled ones are not: loaded
# when first used. Those it imports names from get a stand-in whose functions load the module.
LAZY = ("fontTools.subset",)
DEFERRED = {"fontTools.varLib.instancer": ("instantiateVariableFont",)}
FFI_CACHE = Path(__file__).resolve().parent / "__pycache__"
FFI_MODULE = "weasyprint.text.ffi"


@functools.cache
def weasyprint():
    real = ctypes.util.find_library
    ctypes.util.find_library = lambda name: None
    try:
        with _lazy(LAZY), _deferred(DEFERRED), _precompiled_ffi(), _fontconfig_without_fonts():
            import weasyprint as module
    except OSError:
        for name in [m for m in sys.modules if m == "weasyprint" or m.startswith("weasyprint.")]:
            del sys.modules[name]
        ctypes.util.find_library = real
        with _fontconfig_without_fonts():
            import weasyprint as module
    finally:
        ctypes.util.find_library = real
    # WeasyPrint lets Pillow load a truncated image, for every image of the process: a picture
    # cut short would print half black with no word. A damaged image is an error (html.py).
    from PIL import ImageFile
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    return module


@contextlib.contextmanager
def _fontconfig_without_fonts():
    """fontconfig is given no fonts of its own (source/project.py, isolate_fonts): pages draw with
    their @font-face fonts only. WeasyPrint's import warns of that ("No fonts configured in
    FontConfig"): silenced, that message alone."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="No fonts configured in FontConfig", category=UserWarning)
        yield


_FONT_CONFIGS: dict[str, tuple[str, object, int]] = {}     # purpose -> (key, configuration, its process)


def font_config(key: str, purpose: str = "cards"):
    """One WeasyPrint FontConfiguration per process, purpose and set of fonts (`key`: their
    @font-face rules and the hash of each file). A new one loads fontconfig's configuration and
    every @font-face font again, 0.1 s per document; a kept one has them. A changed font (pnp
    watch) gets a new one: WeasyPrint knows a face by its rule, not by the file's bytes. Card
    faces and page 1 keep one each: a game's own info.html may add @font-face rules, which
    card faces must never see."""
    kept = _FONT_CONFIGS.get(purpose)
    if kept is None or kept[0] != key:
        if kept is not None:
            _let_go(*kept)
        config = weasyprint().text.fonts.FontConfiguration()
        config._folder = _font_folder()          # WeasyPrint makes one itself only if it has none
        kept = _FONT_CONFIGS[purpose] = (key, config, os.getpid())
    return kept[1]


def fonts_key(font_css: str, fonts, hash_of) -> str:
    """The key of font_config for a set of fonts: their @font-face rules and each file's hash
    (`hash_of(path)`)."""
    parts = [font_css] + [f"{font.path}:{hash_of(font.path)}" for font in fonts]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


FONT_FOLDER = "pnp-fonts-"      # + this process's pid namespace and id: pnp-fonts-<namespace>-<pid>-…
STALE = 600                     # seconds: a folder younger than this is never swept


def _font_folder() -> Path:
    """A new folder for a configuration's fonts, in the temporary directory, named for this
    process. A process killed by a signal removes nothing; the first font configuration of a
    later process removes such a folder (_sweep), so a killed build leaves its fonts for a while
    at most."""
    _sweep()
    return Path(tempfile.mkdtemp(prefix=f"{FONT_FOLDER}{_namespace()}-{os.getpid()}-"))


def _namespace() -> str:
    """This process's pid namespace (two containers may share a temporary directory, and a pid
    means nothing in another's)."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


@functools.cache
def _sweep() -> None:
    """Once a process: remove the font folders of this user's processes of this pid namespace
    that are gone, left at least STALE seconds ago. Nothing else in the directory is touched."""
    import stat
    import time
    if os.name != "posix":          # (os.kill(pid, 0) ends a process on Windows)
        return
    mine = f"{FONT_FOLDER}{_namespace()}-"
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(mine):
            continue
        pid = entry.name[len(mine):].split("-", 1)[0]
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (not pid.isdigit() or int(pid) == os.getpid() or not stat.S_ISDIR(info.st_mode)
                or info.st_uid != os.getuid() or time.time() - info.st_mtime < STALE or _alive(int(pid))):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # (another user's: alive)
        return True
    return True


def release_font_configs() -> None:
    """Remove the folders this process's font configurations copied their fonts into.

    WeasyPrint copies each @font-face font into a temporary folder of its configuration's own
    (5 MB with the bundled CJK fonts) and removes it when the configuration is freed; a pnp
    process, each render worker and each forked helper end with os._exit, which frees nothing:
    every build left a folder per process in the temporary directory. This runs at the end of a
    command (an exit function), of a render worker (render/workers.py) and of a helper
    (processes.at_helper_exit). A configuration inherited from the process that forked this one
    is that process's: its folder is left alone."""
    for purpose, kept in list(_FONT_CONFIGS.items()):
        del _FONT_CONFIGS[purpose]
        _let_go(*kept)


def _let_go(key: str, config, owner: int) -> None:
    folder, config._folder = getattr(config, "_folder", None), None    # its __del__ then removes nothing
    if folder is not None and owner == os.getpid():
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(release_font_configs)
at_helper_exit(release_font_configs)        # a forked helper's own configurations (processes.Helper)


@contextlib.contextmanager
def without_margin_boxes():
    """Card pages have no margins, so their sixteen page-margin boxes (@top-left …) have no
    room and nothing to show; WeasyPrint still styles and lays out each of them, a fifth of a
    card's layout time. While a card document renders, that step returns none. (The info
    page, which has margins, is rendered without this.) Checked against WeasyPrint 70."""
    layout = weasyprint().layout
    original = layout.make_margin_boxes
    layout.make_margin_boxes = _none
    try:
        yield
    finally:
        layout.make_margin_boxes = original


def _none(context, page, state):
    return []


@contextlib.contextmanager
def without_font_programs():
    """A card face keeps no font program (render/canonical.py drops it; the pack embeds one subset
    per font), yet WeasyPrint subsets every font of every document it writes and compresses the
    result into it. While a card document is written, a font keeps only its first four bytes
    (whether it is TrueType or CFF, which names its PDF font type). Glyph ids, widths and names
    are WeasyPrint's as before. Checked against WeasyPrint 70."""
    fonts = weasyprint().pdf.fonts
    original = fonts.Font.clean
    fonts.Font.clean = _no_program
    try:
        yield
    finally:
        fonts.Font.clean = original


def _no_program(font, to_unicode, hinting):
    font.file_content = font.file_content[:4]


# --- modules loaded when first used ---------------------------------------------------------

@contextlib.contextmanager
def _lazy(names):
    """Each module not imported yet is registered now but runs only when one of its names is
    first read (importlib's LazyLoader): `from fontTools import subset` stays cheap until
    `subset.Options` is used. A module that cannot be found is left alone."""
    for name in names:
        if name in sys.modules:
            continue
        parent, _, child = name.rpartition(".")
        try:
            package = importlib.import_module(parent)
            spec = importlib.machinery.PathFinder.find_spec(name, list(package.__spec__.submodule_search_locations))
        except (ImportError, AttributeError, TypeError):
            continue
        if spec is None or spec.loader is None:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(package, child, module)
    yield


@contextlib.contextmanager
def _deferred(modules: dict[str, tuple[str, ...]]):
    """For `from module import f`: until the import is done, `module` is a stand-in whose `f`
    imports the real module (replacing the stand-in) and calls its `f`."""
    stand_ins = {}
    for name, functions in modules.items():
        if name in sys.modules or importlib.util.find_spec(name.partition(".")[0]) is None:
            continue
        stand_in = types.ModuleType(name)
        for function in functions:
            setattr(stand_in, function, functools.partial(_call_real, name, function))
        sys.modules[name] = stand_ins[name] = stand_in
    try:
        yield
    finally:
        for name, stand_in in stand_ins.items():     # a later `import` gets the real module
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


def _call_real(module: str, function: str, *args, **kwargs):
    return getattr(importlib.import_module(module), function)(*args, **kwargs)


# --- C declarations parsed once ---------------------------------------------------------------

class _FFIStandIn:
    """What `cffi.FFI()` gives weasyprint/text/ffi.py: its `cdef` picks the precompiled FFI
    (or a freshly parsed one), to which everything else is passed on."""

    def __init__(self, make_real):
        self._make_real = make_real
        self._ffi = None

    def cdef(self, source, *args, **kwargs):
        self._ffi = _compiled(source, args, kwargs, self._make_real)

    def __getattr__(self, name):
        if self._ffi is None:
            raise AttributeError(name)
        return getattr(self._ffi, name)


@contextlib.contextmanager
def _precompiled_ffi():
    try:
        import cffi
    except ImportError:
        yield
        return
    real = cffi.FFI
    stand_ins = []

    def make(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__")
        if caller != FFI_MODULE or args or kwargs:
            return real(*args, **kwargs)
        stand_ins.append(_FFIStandIn(real))
        return stand_ins[-1]

    cffi.FFI = make
    try:
        yield
    finally:
        cffi.FFI = real
    # The modules that imported the stand-in get the FFI itself (no indirection on every call).
    for stand_in in stand_ins:
        for name, module in list(sys.modules.items()):
            if name.startswith("weasyprint") and getattr(module, "ffi", None) is stand_in:
                module.ffi = stand_in._ffi


def _compiled(source: str, args, kwargs, make_real):
    """The precompiled FFI for these declarations, made and kept the first time; the ordinary
    parsed FFI when it cannot be (kwargs, an unwritable folder, a cffi without the mode)."""
    try:
        import cffi
        key = hashlib.sha256(f"{cffi.__version__}\0{source}".encode()).hexdigest()[:20]
        name = f"_pnp_pango_ffi_{key}"
        path = FFI_CACHE / f"{name}.cffi"         # Python source, named so no tool takes it for the engine's
        if not args and not kwargs:
            if not path.is_file():
                builder = make_real()
                builder.cdef(source)
                builder.set_source(name, None)
                FFI_CACHE.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=FFI_CACHE)
                os.close(fd)
                with contextlib.redirect_stdout(None):
                    builder.emit_python_code(tmp)
                os.replace(tmp, path)
            spec = importlib.util.spec_from_file_location(name, path,
                                                          loader=importlib.machinery.SourceFileLoader(name, str(path)))
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
                return module.ffi
            except Exception:
                path.unlink(missing_ok=True)       # damaged: made again by the next run
                raise
    except Exception:          # any trouble: WeasyPrint's own way, as if this were not here
        pass
    ffi = make_real()
    ffi.cdef(source, *args, **kwargs)
    return ffi
