"""PDF/X-4 for print shops: the shop's CMYK printing condition as the output intent.

What this adds to a finished PDF (ISO 15930-7):
  - an /OutputIntents entry (/S /GTS_PDFX) embedding the CMYK ICC profile the shop prints
    to, named by the profile's own description;
  - a /DefaultRGB colour space (sRGB) in every resource dictionary, so the RGB colours the
    renderers write are colour-managed rather than device colours;
  - a card's picture that came with an ICC profile keeps its own colours (render/art.py) and is
    tagged here with that profile (/ICCBased), so the shop's RIP converts it, not we;
  - XMP metadata naming the version (pdfxid:GTS_PDFXVersion = PDF/X-4), title, dates,
    document and version ids, Trapped = False (also in the Info dictionary);
  - PDF 1.6 at least. Every page already carries TrimBox and BleedBox, every font is embedded.
Dates are fixed (SOURCE_DATE_EPOCH, else 2000-01-01), so the same input still gives the same bytes.

The profile: --icc FILE (the shop's, e.g. FOGRA39 or GRACoL), else `[pdfx] icc` in pnp.toml,
else Ghostscript's default CMYK profile if Debian's libgs-common is installed. We do not ship
one: the printing condition is the shop's to name.
"""
from __future__ import annotations

import datetime
import glob
import hashlib
import io
import os
from importlib.resources import files
from pathlib import Path

import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.errors import PnpError, Problem

# Ghostscript's CMYK profile, where each system's package puts it (tools/install-system-deps.sh):
# Debian's libgs-common, then Fedora, Arch and Homebrew's ghostscript (the last two by version).
SYSTEM_CMYK = ["/usr/share/color/icc/ghostscript/default_cmyk.icc", "/usr/share/ghostscript/iccprofiles/default_cmyk.icc",
               "/usr/share/ghostscript/*/iccprofiles/default_cmyk.icc",
               "/opt/homebrew/share/ghostscript/*/iccprofiles/default_cmyk.icc",
               "/usr/local/share/ghostscript/*/iccprofiles/default_cmyk.icc"]


def system_profile() -> Path | None:
    for pattern in SYSTEM_CMYK:
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[-1])
    return None


MAX_PROFILE_BYTES = 20_000_000      # a CMYK printer profile is 0.5–5 MB


def find_profile(root: Path, given: str | None) -> Path:
    """The profile's path, read and checked to be a CMYK printer profile before the export writes
    anything (a wrong --icc found after the zip is written leaves half an export)."""
    from generator.source.options import read_config
    configured = read_config(root).get("pdfx", {}).get("icc")
    for candidate, origin in ((given, "--icc"), (configured, "pnp.toml [pdfx] icc")):
        if candidate:
            path = (root / candidate) if not Path(candidate).is_absolute() else Path(candidate)
            if not path.is_file():
                raise PnpError(Problem(origin, None, f"ICC profile {candidate} not found"))
            return _checked(path)
    system = system_profile()
    if system is not None:
        return _checked(system)
    raise PnpError(Problem("--pdfx", None, "PDF/X needs the CMYK ICC profile the shop prints to",
                           "pass --icc FILE (ask the shop, e.g. FOGRA39 or GRACoL) or set [pdfx] icc in pnp.toml"))


def _checked(path: Path) -> Path:
    from generator.source.files import read_regular
    try:
        check_profile(read_regular(path, str(path), MAX_PROFILE_BYTES, None), path)
    except OSError as exc:
        raise PnpError(Problem(str(path), None, f"cannot read the ICC profile: {exc.strerror or exc}")) from None
    return path


def check_profile(data: bytes, path: Path) -> str:
    """The profile's description, after checking it is a CMYK output profile."""
    if len(data) < 132 or data[36:40] != b"acsp":
        raise PnpError(Problem(str(path), None, "not an ICC profile"))
    if data[16:20] != b"CMYK" or data[12:16] != b"prtr":
        raise PnpError(Problem(str(path), None, f"an ICC profile of class {data[12:16].decode(errors='replace')} "
                               f"for {data[16:20].decode(errors='replace')}, not a CMYK printer profile"))
    return _description(data) or path.stem


def _description(data: bytes) -> str | None:
    count = int.from_bytes(data[128:132], "big")
    for i in range(count):
        entry = data[132 + 12 * i: 144 + 12 * i]
        if entry[:4] == b"desc":
            offset, size = int.from_bytes(entry[4:8], "big"), int.from_bytes(entry[8:12], "big")
            tag = data[offset:offset + size]
            if tag[:4] == b"desc":                       # ICC v2 textDescriptionType
                length = int.from_bytes(tag[8:12], "big")
                return tag[12:12 + length].rstrip(b"\0").decode("latin-1")
            if tag[:4] == b"mluc":                       # ICC v4 multiLocalizedUnicodeType
                rec_len, rec_off = int.from_bytes(tag[20:24], "big"), int.from_bytes(tag[24:28], "big")
                return tag[rec_off:rec_off + rec_len].decode("utf-16-be")
    return None


def make_pdfx(pdf: pikepdf.Pdf, title: str, profile_path: Path) -> None:
    data = profile_path.read_bytes()
    condition = check_profile(data, profile_path)
    profile = pdf.make_stream(data)
    profile.N = 4
    pdf.Root.OutputIntents = Array([Dictionary(
        Type=Name.OutputIntent, S=Name.GTS_PDFX, OutputConditionIdentifier=pikepdf.String(condition),
        Info=pikepdf.String(condition), DestOutputProfile=profile)])
    srgb = pdf.make_stream(files("weasyprint.pdf").joinpath("sRGB2014.icc").read_bytes())
    srgb.N = 3
    default_rgb = pdf.make_indirect(Array([Name.ICCBased, srgb]))
    owners = [obj for obj in pdf.objects
              if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)) and "/Resources" in obj]
    for owner in owners + [page.obj for page in pdf.pages]:
        resources = _child(owner, "/Resources")
        _child(resources, "/ColorSpace").DefaultRGB = default_rgb
    stamp = _date()
    pdf.docinfo = pdf.make_indirect(Dictionary(
        Title=pikepdf.String(title), Producer=pikepdf.String("pnp"), Trapped=Name("/False"),
        CreationDate=pikepdf.String(stamp.strftime("D:%Y%m%d%H%M%SZ")),
        ModDate=pikepdf.String(stamp.strftime("D:%Y%m%d%H%M%SZ"))))
    document_id = hashlib.sha256(title.encode() + data).hexdigest()[:32]
    xmp = XMP.format(title=_xml(title), date=stamp.strftime("%Y-%m-%dT%H:%M:%SZ"), doc=document_id)
    metadata = pdf.make_stream(xmp.encode("utf-8"))
    metadata.Type, metadata.Subtype = Name.Metadata, Name.XML
    pdf.Root.Metadata = metadata


def tag_pictures(pdf: pikepdf.Pdf, pictures: dict[Path, bytes]) -> None:
    """Give each image drawn from one of `pictures` (prepared file -> its ICC profile) that profile
    as its colour space. WeasyPrint writes images as device colours and names no file, so an image
    is known by its content: a JPEG's bytes pass through unchanged, other images by their pixels."""
    if not pictures:
        return
    wanted = {}
    for path, icc in pictures.items():
        wanted[_identity_of_file(path.read_bytes())] = icc
    streams: dict[bytes, pikepdf.Object] = {}
    images = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"]
    for obj in images:
        icc = wanted.get(_identity_of_image(obj))
        if icc is None:
            continue
        if icc not in streams:                     # one profile object however many images use it
            stream = pdf.make_stream(icc)
            stream.N = ICC_CHANNELS.get(icc[16:20], 3)
            streams[icc] = stream
        obj.ColorSpace = Array([Name.ICCBased, streams[icc]])


ICC_CHANNELS = {b"RGB ": 3, b"CMYK": 4, b"GRAY": 1}


def _identity_of_file(data: bytes) -> tuple:
    from PIL import Image
    image = Image.open(io.BytesIO(data))
    if image.format == "JPEG":
        return ("jpeg", hashlib.sha256(data).hexdigest())
    return _pixels(image)


def _identity_of_image(obj: pikepdf.Stream) -> tuple | None:
    try:
        if obj.get("/Filter") == Name.DCTDecode:
            return ("jpeg", hashlib.sha256(obj.read_raw_bytes()).hexdigest())
        return _pixels(pikepdf.PdfImage(obj).as_pil_image())
    except (pikepdf.PdfError, NotImplementedError, ValueError, OSError):
        return None


def _pixels(image) -> tuple:
    """An image by its colour pixels (an alpha channel is a separate mask in a PDF)."""
    image.load()
    mode = {"RGBA": "RGB", "LA": "L"}.get(image.mode, image.mode)
    return ("pixels", mode, image.size, hashlib.sha256(image.convert(mode).tobytes()).hexdigest())


def _child(parent, key: str) -> Dictionary:
    if key not in parent:
        parent[key] = Dictionary()
    return parent[key]


def _date() -> datetime.datetime:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "946684800"))     # 2000-01-01
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


XMP = """<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
    xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>
   <xmp:CreateDate>{date}</xmp:CreateDate>
   <xmp:ModifyDate>{date}</xmp:ModifyDate>
   <xmp:MetadataDate>{date}</xmp:MetadataDate>
   <xmp:CreatorTool>pnp</xmp:CreatorTool>
   <pdf:Producer>pnp</pdf:Producer>
   <pdf:Trapped>False</pdf:Trapped>
   <xmpMM:DocumentID>uuid:{doc}</xmpMM:DocumentID>
   <xmpMM:VersionID>1</xmpMM:VersionID>
   <xmpMM:RenditionClass>default</xmpMM:RenditionClass>
   <pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""
