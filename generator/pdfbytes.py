"""A PDF's bytes into pikepdf and out of it at qpdf's own speed.

pikepdf reads an `io.BytesIO` through a Python call for every read qpdf makes, and writes to one
the same way. A 5,000-card pack (5 MB) took 0.30 s to parse that way and 0.30 s to save, against
0.09 s and 0.12 s when qpdf maps the bytes from a file and writes to a real file; a card face's
save took 1.21 ms against 0.96 ms (measured on one 2-core machine, 2026-12-04; the bytes written
are the same). So saves go through an anonymous in-memory file (Linux's memfd; elsewhere an
unnamed temporary file), closed as soon as its bytes are read, and so do opens of large
documents. A small document is opened from a BytesIO: an open document holds its file for as
long as it lives, and a build may hold thousands of faces (file descriptors are limited).
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
import zlib

import pikepdf

# Documents smaller than this are opened from a BytesIO (a face is a few KB; see above).
LARGE = 256 * 1024


def _anonymous_file():
    """A read-write binary file with no name, freed when closed."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(os.memfd_create("pnp-pdf"), "w+b")      # close-on-exec, as Python makes it
        except OSError:                       # a kernel without memfd, or a sandbox that refuses it
            pass
    return tempfile.TemporaryFile()


def canonical_stream(stream: pikepdf.Stream) -> None:
    """Give a stream its one canonical form: its fully decoded bytes compressed by Python's zlib at
    the default level (a stream qpdf cannot decode, a JPEG say, stays as it is; qpdf's own
    compression gives other bytes, so it never compresses one). A document whose every stream is
    canonical is saved with AS_IS: qpdf copies each stream as it is, so a stream copied from one
    such document into another keeps its bytes."""
    try:
        data = stream.read_bytes()
    except pikepdf.PdfError:           # a filter only a viewer decodes (DCT, JPX …), or damaged
        return
    stream.write(zlib.compress(data), filter=pikepdf.Name.FlateDecode)


# Saving a document whose streams are canonical (canonical_stream): qpdf copies every stream as it is.
AS_IS = dict(deterministic_id=True, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none,
             object_stream_mode=pikepdf.ObjectStreamMode.disable)


def open_pdf(data: bytes, **options) -> pikepdf.Pdf:
    """pikepdf.open of these bytes (the Pdf holds its input file, which closes when the Pdf is freed)."""
    if len(data) < LARGE:
        return pikepdf.open(io.BytesIO(data), **options)
    file = _anonymous_file()
    try:
        file.write(data)
        file.flush()
        file.seek(0)
        return pikepdf.open(file, access_mode=pikepdf.AccessMode.mmap, **options)
    except BaseException:
        file.close()
        raise


def pdf_bytes(pdf: pikepdf.Pdf, **options) -> bytes:
    """The bytes pdf.save(**options) writes; with `deterministic_id`, the file's /ID is a hash of
    its content (see content_id) instead of qpdf's own, which is the same promise."""
    with_id = options.pop("deterministic_id", False)
    data = _saved(pdf, static_id=with_id, **options)
    if not with_id:
        return data
    found = content_id(data)       # None: no ID where qpdf writes it: qpdf's own, as before
    return found if found is not None else _saved(pdf, deterministic_id=True, **options)


def _saved(pdf: pikepdf.Pdf, **options) -> bytes:
    with _anonymous_file() as file:
        pdf.save(file, **options)
        file.seek(0)
        return file.read()


# qpdf's deterministic /ID is the MD5 of the file as it writes it: 9 ms of a 5,000-card pack's
# 45 ms save, on a machine that hashes sha256 in hardware at 1 GB/s. Asked for its fixed test ID
# instead (static_id), qpdf writes that in the trailer, and it is replaced by the first half of the
# sha256 of the bytes so written: the same document still gives the same bytes, another one
# another ID, for 5 ms. As with qpdf's, a document that had an ID keeps its first half.
STATIC_ID = b"31415926535897932384626433832795"
_IDS = re.compile(rb"/ID \[<([0-9a-f]{32})><" + STATIC_ID + rb">\]")


def content_id(data: bytes) -> bytes | None:
    """The file with qpdf's fixed test ID replaced as described above (None if it has none where
    qpdf writes it)."""
    at = data.rfind(b"<" + STATIC_ID + b">]")
    found = _IDS.match(data, at - 39) if at >= 39 else None     # "/ID [<" and 32 digits, ">"
    if found is None:
        return None
    view = memoryview(data)
    head = hashlib.sha256(view[:found.start()])        # all but the ID and the few bytes after it
    as_written = head.copy()
    as_written.update(view[found.start():])
    digest = as_written.hexdigest()[:32].encode()
    ids = b"/ID [<" + (digest if found.group(1) == STATIC_ID else found.group(1)) + b"><" + digest + b">]"
    out = b"".join((view[:found.start()], ids, view[found.end():]))
    head.update(ids)
    head.update(view[found.end():])
    _HASHED[:] = [out, head.hexdigest()]
    return out


# The bytes pdf_bytes last made with a content ID and their sha256, taken on from the ID's hash (the
# pack's hash, for its sheet record and the up-to-date stamp: 5 MB hashed once, not twice).
_HASHED: list = [None, ""]


def sha256_hex(data: bytes) -> str:
    """The sha256 of `data` as hex (without hashing them again if pdf_bytes just made them)."""
    if _HASHED[0] is data:
        return _HASHED[1]
    return hashlib.sha256(data).hexdigest()
