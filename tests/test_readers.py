"""The engine's quick readers of PDF bytes read what the libraries' general ones read: the scan
that makes a face canonical (render/canonical.py) against pikepdf's content-stream parser, and
preflight's characters (check/preflight.py) against pypdfium2's text helpers."""
from __future__ import annotations

import io

import pikepdf
import pypdfium2 as pdfium
import pytest
from reportlab.pdfgen import canvas

from generator.check.preflight import _chars
from generator.render import canonical

# A stream as WeasyPrint writes one: every operator that names a resource, text shown with two
# fonts (in TJ arrays and with Tj), a device colour space, a pattern, a form, numbers of all kinds.
WEASY_LIKE = b"""1 0 0 -1 0 270 cm
q /a0 gs 0.5 .25 -3. 1 re W n
/DeviceRGB cs 1 0 0 scn /p5 cs /p5 scn 0 0 10 10 re f
BT 1 0 0 -1 35.8 52.4 Tm /f1 16 Tf [ <139d0013> 0 <0011> -17 <0a63 0001> ] TJ
/f0 12 Tf <0024004200530045> Tj /f1 9 Tf [<0011>] TJ ET
/s2 sh /x3 Do /a0 gs /a1 gs /Span BMC EMC [ ] 0 d Q
"""


def _parsed(content: bytes):
    """What pikepdf reads in a stream: operators and their operands, numbers as numbers."""
    pdf = pikepdf.new()
    ops = []
    for operands, operator in pikepdf.parse_content_stream(pikepdf.Stream(pdf, content)):
        values = []
        for operand in operands:
            items = list(operand) if isinstance(operand, pikepdf.Array) else [operand]
            values += [bytes(i) if isinstance(i, pikepdf.String) else
                       str(i) if isinstance(i, pikepdf.Name) else float(i) for i in items]
        ops.append((str(operator), values))
    return ops


def _stream(data: bytes):
    pdf = pikepdf.new()
    return pdf, pikepdf.Stream(pdf, data)


def test_the_scan_renames_and_counts_glyphs_as_the_parser_does():
    pdf, stream = _stream(WEASY_LIKE)
    scanned = canonical._scan_content(WEASY_LIKE)
    assert scanned is not None
    content, names, gids = scanned
    parsed_content, parsed_names, parsed_gids = canonical._parse_content(stream)
    assert names == parsed_names == {
        "/Font": {"/f1": "/F1", "/f0": "/F2"}, "/ExtGState": {"/a0": "/G1", "/a1": "/G2"},
        "/ColorSpace": {"/p5": "/C1"}, "/Pattern": {"/p5": "/P1"}, "/Shading": {"/s2": "/S1"},
        "/XObject": {"/x3": "/X1"}}
    assert gids == parsed_gids == {"/f1": {0x139D, 0x0013, 0x0011, 0x0A63, 0x0001},
                                   "/f0": {0x24, 0x42, 0x53, 0x45}}
    assert _parsed(content) == _parsed(parsed_content)
    assert content.startswith(b"1 0 0 -1 0 270 cm\nq /G1 gs 0.5 .25 -3. 1 re")    # the stream's own bytes


@pytest.mark.parametrize("stream", [
    b"BT /F1 12 Tf (literal) Tj ET",                          # a literal string
    b"/Span <</MCID 0>> BDC EMC",                              # a dictionary
    b"% a comment\n0 0 m",                                     # a comment
    b"BI /W 1 /H 1 /CS /G /BPC 8 ID \x00 EI",                  # an inline image
    b"/F#31 12 Tf",                                            # an escaped name
    b"BT /F1 12 Tf <123> Tj ET",                               # an odd hex string
    b"true 0 d",                                               # a keyword as an operand
    b"BT 12 Tf ET",                                            # an operator missing its name
])
def test_what_the_scan_does_not_read_goes_to_the_parser(stream):
    assert canonical._scan_content(stream) is None


def test_preflight_reads_each_character_as_pypdfium2_does():
    """Line-end hyphens (pdfium's code 2, U+FFFE in its text), the line breaks pdfium adds, tabs
    and spaces: the characters the safe-area check measures, and their boxes, are the helpers'."""
    buffer = io.BytesIO()
    sheet = canvas.Canvas(buffer, pagesize=(300, 300))
    text = sheet.beginText(20, 250)
    text.setFont("Helvetica", 12)
    for line in ["A card whose text is hyphen-", "ated at a line end, and co-", "operates.", "Tabs\tand  spaces."]:
        text.textLine(line)
    sheet.drawText(text)
    sheet.showPage()
    sheet.save()
    document = pdfium.PdfDocument(buffer.getvalue())
    try:
        page = document[0].get_textpage()
        helpers = [(page.get_text_range(i, 1), page.get_charbox(i)) for i in range(page.count_chars())]
        measured = [(c, box) for c, box in helpers if c.strip() and c not in "\ufffe\ufeff"]
        assert [(c, (left, bottom, right, top)) for c, left, bottom, right, top in _chars(page)] == measured
        assert "\ufffe" in [c for c, _ in helpers] and len(measured) > 60
    finally:
        document.close()


def test_the_characters_the_safe_area_check_passes_over_are_the_blank_ones():
    """_chars leaves out what the check never measured: any character str.strip() removes, and
    the byte-order marks pdfium's text holds."""
    from generator.check.preflight import _BLANK
    assert _BLANK == {chr(c) for c in range(0x110000) if not chr(c).strip()} | {"\ufffe", "\ufeff"}
