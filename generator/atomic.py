"""Write files so that a reader (or a killed build) never sees half of one.

Data goes to a temporary file in the target folder, is flushed to disk, then renamed
over the target in one step (os.replace is atomic on one file system). Until then the
previous file stays as it was; a failed write leaves nothing behind (a killed process
may leave a hidden `.<name>.*.tmp` beside the target, never a half-written target).
"""
from __future__ import annotations

import contextlib
import errno
import itertools
import os
import shutil
import stat
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

import orjson

from generator.errors import PnpError, Problem


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    with writing(path, durable) as handle:
        handle.write(data)


def write_record(path: Path, value, durable: bool = False, sort_keys: bool = False) -> None:
    """A build's own JSON record (a cache index, a memo), compact, by orjson (a 5,000-card pack's
    records are megabytes, written on every rebuild). Whatever is in its place is replaced, even
    a folder made by hand or a tool: a record is only a record, made again.

    A record that is not `durable` is only a saving (a cache, a memo): the old file is removed
    before the new one takes its name. A reader meanwhile finds none (and builds as if there
    were none), never half of one. Renamed over the old file instead, the file system starts
    writing the new one to disk at once (ext4 does, for a file renamed over one whose data it
    has not written yet: a record written by the build before): 1–2 ms a megabyte."""
    make_room(path)
    option = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    with writing(path, durable, remove_old=not durable) as handle:
        handle.write(orjson.dumps(value, option=option))


_READ = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_NOFOLLOW", 0)


def read_record(path: Path):
    """A record's value; OSError if it cannot be read (IsADirectoryError for a folder), ValueError
    if it is not JSON (see read_kept)."""
    return orjson.loads(read_kept(path))


def read_kept(path: Path) -> bytes:
    """The bytes of a file the build keeps (a record, a store entry); OSError if it cannot be read
    (IsADirectoryError for a folder). Only a regular file is read, and not through a link in its place
    (which leads out of build/, or to a device that never ends): a named pipe would block the build
    forever, so it is opened without waiting. (source/files.read_regular reads a project's inputs,
    which may be links, and says what is wrong as a problem: an entry that is not whole is a miss.)"""
    fd = os.open(path, _READ)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return handle.read()


def make_room(path: Path) -> None:
    """Clear the way for a file the build makes again at will (a record, a cache entry): a folder
    where the file goes is removed, and so is a file where one of its folders should be when that
    is inside a `.cache` folder (outputs elsewhere are never removed this way), and a link in place
    of one of those folders (see unlink_cache_links)."""
    unlink_cache_links(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    for parent in path.parents:
        if parent.is_dir():
            return
        if parent.exists() or parent.is_symlink():
            if ".cache" in parent.parts:
                # another build sharing the cache may have made the folder (or removed the file)
                # since is_dir() looked: then there is nothing left to clear
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    parent.unlink()
            return


def unlink_cache_links(path: Path) -> None:
    """A folder of build/.cache (the store itself, a kind of entry, a shard of one) that is a
    symbolic link would have the build write its entries wherever the link leads, outside build/:
    the link is removed (never what it leads to), and the folder is made again by the write.
    (build/ itself may be a link: the designer's choice, as refuse_links has it.)"""
    parts = path.parts
    start = next((i for i in range(len(parts) - 2, 0, -1) if parts[i] == ".cache" and parts[i - 1] == "build"), None)
    if start is None:
        return
    here = Path(*parts[:start])
    for part in parts[start:-1]:
        here = here / part
        if here.is_symlink():
            with contextlib.suppress(FileNotFoundError):    # (another build removed it meanwhile)
                here.unlink()
            return


@contextlib.contextmanager
def writing(path: Path, durable: bool = True, remove_old: bool = False) -> Iterator[BinaryIO]:
    """A binary file handle whose contents replace path only when the block ends without an
    error; on an error the temporary file is removed and path is left as it was. For outputs
    too large to hold in memory (a zip of thousands of images), written piece by piece.
    `remove_old`: the old file is removed just before the new one takes its name (a cache's
    record: see write_record)."""
    with _staging(path, durable) as (handle, tmp):
        yield handle
    try:
        if remove_old:
            with contextlib.suppress(OSError):      # gone already, or held open (Windows): replaced below
                os.unlink(path)
        commit(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def stage(path: Path, data: bytes) -> Path:
    """Write data to a temporary file beside path, on disk; return its name, for commit() to put
    in place later (a build that writes several files commits them only once all are checked)."""
    with _staging(path, durable=True) as (handle, tmp):
        handle.write(data)
    return tmp


@contextlib.contextmanager
def _staging(path: Path, durable: bool) -> Iterator[tuple[BinaryIO, Path]]:
    """A new temporary file beside path (the same file system, so the rename is atomic), open for
    writing, and its name; removed if the block fails. `durable` flushes it to disk at the end,
    so it survives a power cut, not only a killed process (costly per file, so caches, which a
    later build can rebuild, skip it)."""
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle, tmp
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), 0o644)   # whatever the umask: outputs are ordinary files
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


_NUMBERS = itertools.count()
_EXCLUSIVE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _temporary(path: Path) -> tuple[int, Path]:
    """A new file `.<name>.<process>-<number>.tmp` beside path, created (never an existing one:
    a name left by a killed process whose number came round again is skipped), and its name. Its
    folders are made when it is first refused for want of them. (tempfile.mkstemp's random names
    and the folder made every time were most of a cold build's ~0.5 ms a face of writing to the
    face cache: two files a face.)"""
    while True:
        tmp = path.parent / f".{path.name}.{os.getpid()}-{next(_NUMBERS)}.tmp"
        try:
            return os.open(tmp, _EXCLUSIVE, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(tmp, _EXCLUSIVE, 0o600), tmp


def commit(tmp: Path, path: Path) -> None:
    """Put a staged file in place in one step."""
    os.replace(tmp, path)


def refuse_links(path: Path, build: Path) -> None:
    """Stop (PnpError) when `path`, or a folder between `build` and it, is a symbolic link: an
    output folder pnp fills and clears (a gallery's img/, a pack's -cut/) that leads elsewhere
    would have pnp write there and delete files there. build/ itself may be a link (to a larger
    disk): that is the designer's choice, made once for every output."""
    path = Path(path)
    try:
        steps = path.relative_to(build).parts
    except ValueError:
        steps = path.parts
    here = Path(build)
    for step in steps:
        here = here / step
        if here.is_symlink():
            shown = here.relative_to(build.parent) if here.is_relative_to(build.parent) else here
            raise PnpError(Problem(str(shown), None, "is a symbolic link; pnp writes and deletes its outputs only "
                                   "in folders of its own", "remove the link; pnp makes the folder again"))


def remove_outputs(folder: Path, build: Path, doomed: Callable[[Path], bool]) -> None:
    """Delete the files of `folder` (an output folder under `build`) that `doomed` picks, never
    through a symbolic link (refuse_links); a file that is itself a link is removed as a link.
    Every deletion of an output outside the caches goes through here."""
    if not folder.is_dir():
        return
    refuse_links(folder, build)
    for old in folder.iterdir():
        if (old.is_symlink() or not old.is_dir()) and doomed(old):
            with contextlib.suppress(FileNotFoundError):   # another build beside this one may have removed it
                old.unlink()
