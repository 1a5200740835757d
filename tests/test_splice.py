"""generator/sheets/splice.py: objects written as qpdf writes them, a file with some objects
replaced equal to qpdf's save of the same document, and every layout it was not made for refused."""
from __future__ import annotations

import io

import pikepdf
import pytest
from pikepdf import Array, Dictionary, Name, String

from generator.sheets import splice
from generator.pdfbytes import AS_IS
from generator.pdfbytes import pdf_bytes


def _document() -> pikepdf.Pdf:
    """Objects of every kind a pack holds, and some it may: strings that spell references or hold
    parentheses, backslashes and bytes that are not text, reals, names that need escapes, nested
    dictionaries and arrays, streams compressed and not."""
    pdf = pikepdf.new()
    font = pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name("/A#20B")))
    for i in range(3):
        page = pdf.add_blank_page(page_size=(200.5, 300.25))
        form = pdf.make_stream(b"BT /F1 12 Tf (x) Tj ET\n" * (i + 1))
        form.write(form.read_bytes(), filter=Name.FlateDecode) if i else None
        form.Type, form.Subtype, form.BBox = Name.XObject, Name.Form, Array([0, 0, 10.125, -3])
        form.Resources = Dictionary(Font=Dictionary(F1=font), ExtGState=Dictionary(G1=Dictionary(ca=0.5)))
        form.PnpId = String(f"cards/{i} 0 R (a) \\ b")
        form.Other = String(b"\x00\xff(")
        form.Empty = Dictionary()
        form.List = Array([])
        form.Flag = i % 2 == 0
        page.Resources = Dictionary(XObject=Dictionary(P0=form))
        page.Contents = pdf.make_stream(b"q /P0 Do Q")
    pdf.docinfo = pdf.make_indirect(Dictionary(Title=String("标题 (1)"), Producer=String("t")))
    return pdf


def written_object(obj: pikepdf.Object, number: int, numbers: dict[tuple[int, int], int]) -> bytes:
    """Any object as splice.py would write it (streams by splice.written_stream), to compare with
    qpdf's bytes."""
    if isinstance(obj, pikepdf.Stream):
        return splice.written_stream(obj, number, numbers)
    return b"%d 0 obj\n" % number + splice.renumbered(obj.unparse(resolved=True), numbers) + b"\nendobj\n"


def _written(pdf: pikepdf.Pdf) -> bytes:
    return pdf_bytes(pdf, **AS_IS)


def _objects(data: bytes) -> dict[int, bytes]:
    starts, table = splice.offsets(data)
    ends = starts[2:] + [table]
    return {n: data[starts[n]:ends[n - 1]] for n in range(1, len(starts))}


def test_every_object_is_written_as_qpdf_writes_it():
    data = _written(_document())
    saved = pikepdf.open(io.BytesIO(data))
    objects = _objects(data)
    assert len(objects) == len(saved.objects) > 10
    for number, written in objects.items():
        obj = saved.get_object(number, 0)
        same = {og: og[0] for og in splice.references(written.split(b"\nstream\n")[0])}
        assert written_object(obj, number, same) == written


def test_a_file_with_objects_replaced_is_qpdf_s_save_of_the_changed_document():
    """A form's content and text changed in place (its references the same): the spliced file
    is byte for byte what qpdf writes for the changed document, /ID included."""
    before = _written(_document())
    changed = pikepdf.open(io.BytesIO(before))
    form = changed.pages[1].Resources.XObject.P0
    form.write(b"BT /F1 9 Tf (a longer text than before) Tj ET\n" * 5, filter=None)
    form.PnpId = String("cards/x")
    form.write(form.read_bytes())
    number = form.objgen[0]
    same = {og: og[0] for og in splice.references(form.stream_dict.unparse(resolved=True))}
    spliced = splice.replaced(before, {number: splice.written_stream(form, number, same)})
    assert spliced != before
    del changed.trailer.ID          # as a pack built on its last file is saved (a cold pack has none)
    assert spliced == _written(changed)
    assert splice.replaced(before, {}) == before       # nothing replaced: the same bytes, the same ID


def test_references_are_read_outside_strings_only():
    text = rb"<< /A (1 0 R \) 2 0 R) /B 3 0 R /C <31203020> /D [ 4 0 R 5 6 0 R ] /P10 7 0 R >>"
    assert splice.references(text) == [(3, 0), (4, 0), (6, 0), (7, 0)]
    assert splice.renumbered(text, {(3, 0): 30, (4, 0): 40, (6, 0): 60, (7, 0): 70}) == \
        rb"<< /A (1 0 R \) 2 0 R) /B 30 0 R /C <31203020> /D [ 40 0 R 5 60 0 R ] /P10 70 0 R >>"
    with pytest.raises(splice.Unspliceable, match="refers to an object the last pack does not have"):
        splice.renumbered(text, {(3, 0): 30})


@pytest.mark.parametrize("layout", ["object streams", "an appended update", "objects out of order", "cut short"])
def test_a_file_laid_out_otherwise_is_refused(layout):
    pdf = _document()
    if layout == "object streams":
        data = pdf_bytes(pdf, **{**AS_IS, "object_stream_mode": pikepdf.ObjectStreamMode.generate})
    elif layout == "an appended update":
        data = _written(pdf)
        data += b"9 0 obj\n<< >>\nendobj\n" + data[data.rindex(b"xref"):]
    elif layout == "objects out of order":
        data = _written(pdf)
        starts, _ = splice.offsets(data)
        data = data.replace(b"%010d 00000 n " % starts[2], b"%010d 00000 n " % (starts[3] + 1), 1)
    else:
        data = _written(pdf)[:-20]
    with pytest.raises(splice.Unspliceable):
        splice.replaced(data, {})
