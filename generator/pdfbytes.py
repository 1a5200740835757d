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


def canonical_stream(stream: pikepdf.Stream, memo: dict | None = None) -> None:
    """Give a stream its one canonical form: its fully decoded bytes compressed by Python's zlib at
    the default level (a stream qpdf cannot decode, a JPEG say, stays as it is; qpdf's own
    compression gives other bytes, so it never compresses one). A document whose every stream is
    canonical is saved with AS_IS: qpdf copies each stream as it is, so a stream copied from one
    such document into another keeps its bytes. `memo`: canonical bytes by what a stream holds (its
    raw bytes and filter), for streams that many documents hold alike (sheets/sheet_cache.py)."""
    ident = None
    if memo is not None:
        raw = stream.read_raw_bytes()
        ident = hashlib.sha256(raw + repr((stream.get("/Filter"), stream.get("/DecodeParms"))).encode()).digest()
    made = memo.get(ident, _UNSEEN) if ident else _UNSEEN
    if made is _UNSEEN:
        try:
            made = zlib.compress(stream.read_bytes())
        except pikepdf.PdfError:           # a filter only a viewer decodes (DCT, JPX …), or damaged
            made = None
        if ident:
            memo[ident] = made
    if made is not None:
        stream.write(made, filter=pikepdf.Name.FlateDecode)


_UNSEEN = object()


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
    """The bytes pdf.save(**options) writes (through an in-memory file: see the module)."""
    with _anonymous_file() as file:
        pdf.save(file, **options)
        file.seek(0)
        return file.read()


def sha256_hex(data: bytes) -> str:
    """The sha256 of `data` as hex."""
    return hashlib.sha256(data).hexdigest()


class TooDeep(Exception):
    """An object nested past what canonical_bytes follows."""


def canonical_bytes(obj, skip: frozenset = frozenset(), depth: int = 0) -> bytes:
    """An object as bytes that do not depend on object numbers (which shift whenever anything
    before them changes): dictionaries by sorted key less `skip`, streams by a hash of their raw
    bytes. Two objects with equal bytes say the same (preflight's memo keys pages by them; a tidied
    file shares fonts alike by them). TooDeep past twelve levels."""
    if depth > 12:
        raise TooDeep
    if isinstance(obj, pikepdf.Stream):
        head = b" ".join(k.encode() + b" " + canonical_bytes(obj[k], skip, depth + 1) for k in sorted(obj.keys())
                         if k not in skip and k != "/Length")
        return b"S<< " + head + b" >>" + hashlib.sha256(obj.read_raw_bytes()).digest()
    if isinstance(obj, pikepdf.Object):
        text = obj.unparse()
        if b" R" not in text and not skip:     # no reference inside (one reads "12 0 R"): as written
            return text
    if isinstance(obj, pikepdf.Dictionary):
        return b"<< " + b" ".join(k.encode() + b" " + canonical_bytes(obj[k], skip, depth + 1)
                                  for k in sorted(obj.keys()) if k not in skip) + b" >>"
    if isinstance(obj, pikepdf.Array):
        return b"[ " + b" ".join(canonical_bytes(v, skip, depth + 1) for v in obj) + b" ]"
    if isinstance(obj, pikepdf.Object):
        return obj.unparse()
    return b"-" if obj is None else str(obj).encode()
