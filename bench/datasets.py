"""Loads the evaluation corpus (or the project's generated fixtures) with its ground truth."""
from __future__ import annotations

import functools
import hashlib
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
SAMPLES = ROOT / "data" / "samples"
FORMATS = ("pdf", "docx", "pptx", "html")
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
MIN_FRAGMENT = 8  # characters: shorter revision/notes fragments are too ambiguous to look for
MIN_NOTE = 20  # characters: a "substantive" speaker-notes paragraph (as PHENOMENA.tsv counts them)
# bench-quick: at most this many documents per dataset (sorted by path; deterministic)
QUICK_CAP = {"scrapinghub_aeb": 30, "mozilla_readability": 5, "trafilatura_eval": 12, "wcxb_dev_sample": 5}


@dataclass
class Doc:
    """One input document: where it is, its format and dataset, and the ground truth we use."""

    path: Path
    rel: str
    fmt: str
    dataset: str
    pages: int = 1
    gt: dict = field(default_factory=dict)  # kind -> data (aeb, snippets, olmocr, md, must, revisions, notes)


def corpus_hash(root: Path) -> str:
    """sha256 over the sorted (relative path, sha256 of bytes) of every file under root."""
    h = hashlib.sha256()
    for p in sorted(x for x in root.rglob("*") if x.is_file()):
        h.update(f"{p.relative_to(root).as_posix()}\t{hashlib.sha256(p.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def _read_tsv(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if ln.strip()]


def _phenomena(root: Path) -> dict[str, dict[str, str]]:
    out = {}
    for row in _read_tsv(root / "PHENOMENA.tsv"):
        out[row["path"]] = dict(re.findall(r"(\w+)=(\S+)", row.get("phenomena", "")))
    return out


def docx_revisions(data: bytes) -> dict[str, list[str]]:
    """Deleted and inserted fragments of a DOCX, from its own XML, with current/original text.

    A fragment is a maximal run of consecutive same-kind revision elements within one paragraph
    (w:del/w:moveFrom = deleted, w:ins/w:moveTo = inserted). Fragments shorter than MIN_FRAGMENT
    characters, or that also occur in the text on the other side (deleted text that is still in the
    accepted text; inserted text already in the original), are left out as undecidable.
    """
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    dele, ins, cur_paras, orig_paras = [], [], [], []
    for p in root.iter(W + "p"):
        cur, orig, frags, last_kind = [], [], [], None
        for node in p.iter(W + "t", W + "delText"):
            anc = {a.tag for a in node.iterancestors()}
            kind = ("del" if node.tag == W + "delText" or anc & {W + "del", W + "moveFrom"}
                    else "ins" if anc & {W + "ins", W + "moveTo"} else None)
            text = node.text or ""
            if kind != "del":
                cur.append(text)
            if kind != "ins":
                orig.append(text)
            if kind and kind == last_kind:
                frags[-1][1].append(text)
            elif kind:
                frags.append((kind, [text]))
            if text.strip() or kind:
                last_kind = kind
        cur_paras.append("".join(cur))
        orig_paras.append("".join(orig))
        for kind, parts in frags:
            (dele if kind == "del" else ins).append("".join(parts).strip())
    current = " ".join(" ".join(cur_paras).lower().split())
    original = " ".join(" ".join(orig_paras).lower().split())

    def undecidable(frag: str, other: str) -> bool:
        return len(frag) < MIN_FRAGMENT or " ".join(frag.lower().split()) in other

    keep_del = [f for f in dele if not undecidable(f, current)]
    keep_ins = [f for f in ins if not undecidable(f, original)]
    return {"deleted": sorted(set(keep_del)), "inserted": sorted(set(keep_ins))}


def pptx_notes(data: bytes) -> list[str]:
    """Substantive speaker-notes paragraphs of a PPTX (body placeholder of each notes slide),
    leaving out those whose text also appears on a slide (they cannot tell body from notes)."""
    from bench.metrics import norm_words, contains

    notes, slides = [], []
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        for name in sorted(z.namelist()):
            if re.fullmatch(r"ppt/slides/slide\d+\.xml", name):
                slides.append(" ".join(t.text or "" for t in etree.fromstring(z.read(name)).iter(A + "t")))
            if not re.fullmatch(r"ppt/notesSlides/notesSlide\d+\.xml", name):
                continue
            root = etree.fromstring(z.read(name))
            for sp in root.iter("{http://schemas.openxmlformats.org/presentationml/2006/main}sp"):
                ph = sp.find(".//{http://schemas.openxmlformats.org/presentationml/2006/main}ph")
                if ph is None or ph.get("type") != "body":
                    continue
                for para in sp.iter(A + "p"):
                    text = " ".join("".join(t.text or "" for t in para.iter(A + "t")).split())
                    if len(text) >= MIN_NOTE:
                        notes.append(text)
    slide_text = norm_words(" ".join(slides))
    return [n for n in notes if not contains(slide_text, n)]


def _gt_for(root: Path, row: dict, ph: dict) -> dict:
    """Ground truth of one manifest row, by dataset and ground-truth file type."""
    gt: dict = {}
    fmt, ds, rel = row["format"], row["dataset"], row["path"]
    for g in (x for x in row["ground_truth"].split(";") if x and x != "-"):
        gp = root / g
        if ds == "scrapinghub_aeb" and g.endswith(".json"):
            gt["aeb"] = json.loads(gp.read_text(encoding="utf-8")).get("articleBody", "")
        elif ds == "trafilatura_eval" and g.endswith(".json"):
            d = json.loads(gp.read_text(encoding="utf-8"))
            gt["snippets"] = {"with": d.get("with", []), "without": d.get("without", [])}
        elif g.endswith(".tests.jsonl"):
            gt["olmocr"] = [json.loads(ln) for ln in gp.read_text(encoding="utf-8").splitlines() if ln.strip()]
        elif g.endswith(".must_include.json"):
            gt["must"] = json.loads(gp.read_text(encoding="utf-8"))["must_include"]
        elif g.endswith(".md") and ds == "docling":
            gt["md"] = gp.read_text(encoding="utf-8")
        elif g.endswith(".expected.html"):
            gt["html_expected"] = gp.read_bytes()
    data = (root / rel).read_bytes()
    if fmt == "docx" and any(k in ph for k in ("ins", "del", "move")):
        revs = docx_revisions(data)
        if revs["deleted"] or revs["inserted"]:
            gt["revisions"] = revs
    if fmt == "pptx" and int(ph.get("notes_ge20chars", "0")) > 0:
        notes = pptx_notes(data)
        if notes:
            gt["notes"] = notes
    return gt


def load_corpus(root: Path = CORPUS, quick: bool = False) -> list[Doc]:
    """Every document of MANIFEST.tsv with its ground truth; quick keeps a per-dataset subset."""
    phen = _phenomena(root)
    docs, per_ds = [], {}
    for row in sorted(_read_tsv(root / "MANIFEST.tsv"), key=lambda r: r["path"]):
        key = (row["format"], row["dataset"])
        per_ds[key] = per_ds.get(key, 0) + 1
        ph = phen.get(row["path"], {})
        doc = Doc(root / row["path"], row["path"], row["format"], row["dataset"],
                  pages=int(ph.get("pages", "1")))
        doc.gt = _gt_for(root, row, ph)
        if quick and not _in_quick(doc, per_ds[key]):
            continue
        docs.append(doc)
    return docs + load_wcxb(root, quick)


WCXB = "html/wcxb_dev_sample"  # under the corpus: html/<id>.html.gz, gt/<id>.json, metadata.json, evaluate.py
WCXB_PAGES = ROOT / "bench" / "out" / "wcxb_pages"  # the pages unpacked, as every system reads files


def load_wcxb(root: Path = CORPUS, quick: bool = False) -> list[Doc]:
    """The WCXB development sample's pages (unpacked once into WCXB_PAGES) with their main content and
    page type; quick keeps `QUICK_CAP['wcxb_dev_sample']` per page type."""
    import gzip

    folder = root / WCXB
    if not (folder / "metadata.json").exists():
        return []
    WCXB_PAGES.mkdir(parents=True, exist_ok=True)
    docs, per_type = [], {}
    for page in sorted((folder / "html").glob("*.html.gz")):
        fid = page.name.removesuffix(".html.gz")
        gt = json.loads((folder / "gt" / f"{fid}.json").read_text(encoding="utf-8"))
        kind = _wcxb_type(gt)
        per_type[kind] = per_type.get(kind, 0) + 1
        if quick and per_type[kind] > QUICK_CAP["wcxb_dev_sample"]:
            continue
        target = WCXB_PAGES / f"{fid}.html"
        if not target.exists():
            target.write_bytes(gzip.decompress(page.read_bytes()))
        doc = Doc(target, f"{WCXB}/html/{page.name}", "html", "wcxb_dev_sample")
        doc.gt["wcxb"] = {"main_content": (gt.get("ground_truth") or {}).get("main_content") or "", "page_type": kind}
        docs.append(doc)
    return docs


def _wcxb_type(data: dict) -> str:
    """The page type as the benchmark's evaluate.py reads it (its category is our collection)."""
    pt = ((data.get("_internal") or {}).get("page_type")) or "article"
    pt = pt.get("primary", "article") if isinstance(pt, dict) else pt
    return "collection" if pt == "category" else str(pt)


@functools.cache
def wcxb_word_f1():  # noqa: ANN201 - the benchmark's own scorer
    """word_f1 from the benchmark's evaluate.py in the corpus (loaded by path, never copied)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wcxb_evaluate", CORPUS / WCXB / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.word_f1


def _in_quick(doc: Doc, nth: int) -> bool:
    """The representative subset: documents with ground truth, capped per large dataset."""
    if not doc.gt:
        return False
    return nth <= QUICK_CAP.get(doc.dataset, 10**6) and doc.pages <= 20


def load_fixtures() -> list[Doc]:
    """The project's generated samples, with ground truth from the fixture builders' helpers."""
    import pdfplumber

    from docclean_assets_tests.fixtures import build, build_html, build_pdf, pdf_text

    docs = []
    for p in sorted(x for x in SAMPLES.rglob("*") if x.is_file()):
        rel, fmt = p.relative_to(SAMPLES).as_posix(), p.suffix.lstrip(".").lower()
        doc = Doc(p, rel, fmt, "fixtures")
        data = p.read_bytes()
        if fmt == "pdf":
            with pdfplumber.open(p) as pdf:
                doc.pages = len(pdf.pages)
            order = (pdf_text.report_reading_order() if rel == build.REPORT_PDF
                     else pdf_text.bulletin_reading_order())
            tests = [{"id": f"p{i}", "type": "present", "text": t[:80]} for i, t in enumerate(order)]
            tests += [{"id": f"o{i}", "type": "order", "before": a[:60], "after": b[:60]}
                      for i, (a, b) in enumerate(zip(order, order[1:]))]
            if rel == build.REPORT_PDF:
                tests += [{"id": f"a{n}", "type": "absent", "text": build_pdf.running_head(n)}
                          for n in range(2, doc.pages + 1)]
            tests.append({"id": "wm", "type": "absent", "text": build_pdf.WATERMARK})
            doc.gt["olmocr"] = tests
        elif fmt == "html" and p.name in build_html.SITE_ARTICLES:
            doc.gt["aeb"] = build_html.article_body(p.name)
        elif fmt == "docx":
            revs = docx_revisions(data)
            if revs["deleted"] or revs["inserted"]:
                doc.gt["revisions"] = revs
        elif fmt == "pptx":
            notes = pptx_notes(data)
            if notes:
                doc.gt["notes"] = notes
        docs.append(doc)
    return docs
