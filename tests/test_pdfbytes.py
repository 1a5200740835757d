"""generator/pdfbytes.py: a PDF's bytes in and out of pikepdf through an in-memory file give the
same document and the same bytes as a BytesIO, leave no file open, and work without memfd."""
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


def test_a_deterministic_id_gives_the_same_bytes_for_the_same_document_and_another_id_for_another():
    three, again, four = (pdf_bytes(_blank(n), deterministic_id=True) for n in (3, 3, 4))
    assert three == again
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
