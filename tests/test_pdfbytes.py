"""generator/pdfbytes.py: a PDF's bytes in and out of pikepdf through an in-memory file give the
same document and the same bytes as a BytesIO, leave no file open, and work without memfd."""
import hashlib
import io
import os
import re

import pikepdf
import pytest

from generator import pdfbytes
from generator.pdfbytes import LARGE, open_pdf, pdf_bytes

SAVE = dict(deterministic_id=True, compress_streams=True, object_stream_mode=pikepdf.ObjectStreamMode.disable)


def _document(pages: int) -> bytes:
    """A PDF of `pages` pages, each with its own content stream (about 2 KB a page)."""
    pdf = pikepdf.new()
    for i in range(pages):
        page = pdf.add_blank_page(page_size=(200, 300))
        text = b"".join(b"q 1 0 0 1 %d %d cm 0 0 %d 1 re f Q\n" % (i % 97, j, j + i) for j in range(60))
        page.Contents = pdf.make_stream(text)
    out = io.BytesIO()
    pdf.save(out, **SAVE)
    return out.getvalue()


def _by_bytesio(data: bytes) -> bytes:
    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.Root.PnpMark = pikepdf.Name.Kept
        out = io.BytesIO()
        pdf.save(out, **SAVE)
        return out.getvalue()


def _by_pdfbytes(data: bytes) -> bytes:
    pdf = open_pdf(data)
    pdf.Root.PnpMark = pikepdf.Name.Kept
    return pdf_bytes(pdf, **SAVE)


def _without_id(data: bytes) -> bytes:
    return re.sub(rb"/ID \[<[0-9a-f]{32}><[0-9a-f]{32}>\]", b"/ID", data)


@pytest.mark.parametrize("streams", [pikepdf.ObjectStreamMode.disable, pikepdf.ObjectStreamMode.generate])
def test_a_deterministic_id_is_the_hash_of_the_file_as_qpdf_writes_it_with_its_fixed_id(streams):
    """deterministic_id: the bytes qpdf writes with its fixed test ID, that ID replaced by the
    first half of their sha256 (both halves; a document that had an ID keeps its first half,
    as with qpdf's own); another document, another ID."""
    options = dict(compress_streams=True, object_stream_mode=streams)
    for pages, had_id in ((3, False), (4, False), (3, True)):
        pdf = pikepdf.open(io.BytesIO(_document(pages))) if had_id else pikepdf.new()
        if not had_id:
            for _ in range(pages):
                pdf.add_blank_page()
        first = bytes(pdf.trailer.ID[0]).hex().encode() if had_id else None
        data = pdf_bytes(pdf, deterministic_id=True, **options)
        static = io.BytesIO()
        pdf.save(static, static_id=True, **options)
        digest = hashlib.sha256(static.getvalue()).hexdigest()[:32].encode()
        found = re.findall(rb"/ID \[<([0-9a-f]{32})><([0-9a-f]{32})>\]", data)
        assert found == [(first or digest, digest)], (pages, had_id)
        assert _without_id(data) == _without_id(static.getvalue())
        again = pdf_bytes(pdf, deterministic_id=True, **options)
        assert again == data and pdfbytes.sha256_hex(again) == hashlib.sha256(data).hexdigest()    # as made
        assert pdfbytes.sha256_hex(data) == hashlib.sha256(data).hexdigest()                       # hashed
        with pikepdf.open(io.BytesIO(data)) as reopened:
            assert len(reopened.pages) == pages and bytes(reopened.trailer.ID[1]).hex().encode() == digest
    three, four = (pdf_bytes(_blank(n), deterministic_id=True) for n in (3, 4))
    assert re.findall(rb"/ID \[<(\w+)>", three) != re.findall(rb"/ID \[<(\w+)>", four)


def _blank(pages: int) -> pikepdf.Pdf:
    pdf = pikepdf.new()
    for _ in range(pages):
        pdf.add_blank_page()
    return pdf


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("pages", [1, 800])
def test_the_same_document_and_bytes_as_through_a_bytesio(pages):
    data = _document(pages)
    assert (len(data) >= LARGE) == (pages == 800)          # both ways of opening are exercised
    assert _without_id(_by_pdfbytes(data)) == _without_id(_by_bytesio(data))
    with open_pdf(data) as pdf:
        assert len(pdf.pages) == pages
        assert pdf.pages[-1].Contents.read_bytes().startswith(b"q 1 0 0 1 %d 0 cm" % ((pages - 1) % 97))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")
def test_no_file_is_left_open():
    data = _document(800)
    pdf_bytes(pikepdf.open(io.BytesIO(data)), **SAVE)      # anything made once (a first memfd) is made
    before = _open_fds()
    for _ in range(20):
        with open_pdf(data) as pdf:
            pdf_bytes(pdf, **SAVE)
        del pdf
    assert _open_fds() == before


def test_without_memfd_an_unnamed_temporary_file_serves(monkeypatch):
    data = _document(800)
    expected = _by_pdfbytes(data)

    def refused(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(pdfbytes.os, "memfd_create", refused, raising=False)
    assert _by_pdfbytes(data) == expected
    monkeypatch.delattr(pdfbytes.os, "memfd_create", raising=False)
    assert _by_pdfbytes(data) == expected


def test_a_damaged_document_raises_pikepdfs_error():
    for data in (b"", b"%PDF-1.4\n" + b"no objects here " * (LARGE // 8)):
        with pytest.raises(pikepdf.PdfError):
            open_pdf(data)


@pytest.mark.parametrize("streams", [pikepdf.ObjectStreamMode.disable, pikepdf.ObjectStreamMode.generate])
def test_a_string_that_reads_as_qpdfs_fixed_id_is_left_as_it_is(streams):
    """A document holding qpdf's fixed test ID as a string (written as hex, before the trailer)
    keeps it; the trailer's ID is the one replaced."""
    static = bytes.fromhex("31415926535897932384626433832795")
    pdf = _blank(1)
    pdf.Root.Trap = pikepdf.Array([pikepdf.String(static)])
    pdf.Root.Trap2 = pdf.make_indirect(pikepdf.Array([1, pikepdf.String(static)]))
    data = pdf_bytes(pdf, deterministic_id=True, object_stream_mode=streams)
    with pikepdf.open(io.BytesIO(data)) as reopened:
        assert bytes(reopened.Root.Trap[0]) == static and bytes(reopened.Root.Trap2[1]) == static
        assert bytes(reopened.trailer.ID[1]) != static and reopened.trailer.ID[0] == reopened.trailer.ID[1]
