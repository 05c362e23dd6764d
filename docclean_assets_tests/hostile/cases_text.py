"""Builders of hostile text and HTML (issue 14): long tokens for every text stage, pages of many
sibling elements, UTF-16 pages, deeply nested JSON-LD; and the stage runner the worker calls."""
from __future__ import annotations

import base64
import codecs
import functools
import json
import random

TOKEN_CHARS = 200_000
_BODY = ("The harbour board met on Tuesday to approve the new footbridge across the river, "
         "which will open in March after two years of work on its foundations.")


@functools.lru_cache(maxsize=2)
def tokens(n: int = TOKEN_CHARS) -> dict[str, str]:
    """Texts of about `n` characters without a word break, by shape: a run of letters, base64,
    CJK, DNA, spaces between two words, hyphens and soft hyphens between letters, digits; and
    tags that never close ("<b<b<b...")."""
    rnd = random.Random(14)
    return {
        "letters": "".join(rnd.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n)),
        "base64": base64.b64encode(rnd.randbytes(n * 3 // 4)).decode() + "==",
        "cjk": "".join(chr(rnd.randrange(0x4E00, 0x9FA5)) for _ in range(n)),
        "dna": "".join(rnd.choice("ACGT") for _ in range(n)),
        "spaces": "distri\u00ad" + " " * n + "bution 12",
        "hyphens": "".join(rnd.choice(("ab\u00ad", "cd-", "e\u00ad-", "\u00adf")) for _ in range(n // 3)),
        "digits": "".join(rnd.choice("0123456789") for _ in range(n)),
        "markup": "<b" * (n // 2),
    }


def html_page(body: str, title: str = "Harbour works") -> bytes:
    """A page around `body`, with an article paragraph the extractor keeps."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            f"<main><article><h1>{title}</h1><p>{_BODY}</p>{body}</article></main></body></html>").encode()


def token_page(token: str) -> bytes:
    """A page whose article holds the token as a paragraph of its own."""
    return html_page(f"<p>{token.replace('<', '&lt;')}</p>")


def sibling_page(tag: str, n: int = 200_000) -> bytes:
    """`n` sibling elements of one kind, each with its own short text (a ~4 MB page under the 5 MiB cap)."""
    if tag == "br":
        return html_page("<p>" + "".join(f"line {i}<br>" for i in range(n)) + "</p>")
    if tag == "td":
        return html_page("<table>" + "".join(f"<tr><td>c{i}</td><td>d{i}</td></tr>" for i in range(n // 2)) + "</table>")
    if tag == "li":
        return html_page("<ul>" + "".join(f"<li>Item {i}</li>" for i in range(n)) + "</ul>")
    if tag == "a":
        return html_page("".join(f'<a href="#{i}">L{i}</a>' for i in range(n)))
    return html_page("".join(f"<{tag}>Item {i}</{tag}>" for i in range(n)))


def repeated_page(n: int = 25_000) -> bytes:
    """`n` sibling divs all holding the same text."""
    return html_page("<div>Same text</div>" * n)


def text_node_page(size: int = 4_000_000) -> bytes:
    """One text node of `size` bytes (words of prose, no markup)."""
    words = (_BODY + " ") * (size // (len(_BODY) + 1))
    return html_page(f"<p>{words}</p>")


def deep_wide_page(depth: int = 400, n: int = 100_000) -> bytes:
    """`n` paragraphs inside `depth` nested divs: deep and wide, both under the caps."""
    return html_page("<div>" * depth + "".join(f"<p>Item {i}</p>" for i in range(n)) + "</div>" * depth)


def utf16_page(encoding: str, bom: bool) -> bytes:
    """A genuine page with accents and CJK, in UTF-16 (little- or big-endian) or UTF-8, with or without a BOM."""
    page = html_page("<p>Die Brücke über den Fluß öffnet im März; 東京の橋は三月に開通します。</p>",
                     title="Café Überblick").decode()
    marks = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE, "utf-8": codecs.BOM_UTF8}
    return (marks[encoding] if bom else b"") + page.replace("charset='utf-8'", f"charset='{encoding[:6]}'").encode(encoding)


def jsonld_page(depth: int) -> bytes:
    """An article with a well-formed JSON-LD articleBody script and a second script nested `depth` levels deep."""
    article = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Harbour works",
                          "articleBody": _BODY})
    deep = '{"@type": "Thing", "x": ' + "[" * depth + "]" * depth + "}"
    return html_page(f'<script type="application/ld+json">{article}</script>'
                     f'<script type="application/ld+json">{deep}</script>')


def broken_jsonld_page(shape: str, size: int = 2_000_000) -> bytes:
    """An article whose second JSON-LD script is hostile: broken JSON of `size` characters that a
    recovery retrying at every bracket reads again and again ("[x[x[x...", unclosed nested arrays, a
    number of a million digits), or an articleBody whose markup nests 100,000 levels deep."""
    deep = {"@type": "Article", "articleBody": "<div>" * 100_000 + _BODY + "</div>" * 100_000}
    body = {"brackets": "[x" * (size // 2),
            "nested": ("[" + "1," * (size // 800)) * 400,
            "digits": '{"@type": "Thing", "x": ' + "[1," * 100 + "1" * size,
            "deep_markup": json.dumps(deep)}[shape]
    article = json.dumps({"@type": "NewsArticle", "headline": "Harbour works", "articleBody": _BODY})
    return html_page(f'<script type="application/ld+json">{article}</script>'
                     f'<script type="application/ld+json">{body}</script>')


def deep_markup_page(tag: str, depth: int) -> bytes:
    """An article paragraph wrapped `depth` times in `tag` ("b", "a href='#'", "ul><li")."""
    close = "".join(f"</{t.split()[0]}>" for t in reversed(tag.split("><")))
    return html_page(f"<{tag}>" * depth + f"<p>{_BODY}</p>" + close * depth)


# ---------------------------------------------------------------- stages, run in a worker
def _blocks(text: str, pages: int = 4) -> list:
    """The text as the top line of each of `pages` pages, between two body paragraphs."""
    from docclean_assets.extract.model import BBox, Block

    out = []
    for page in range(1, pages + 1):
        for y0, t in ((20.0, text), (300.0, _BODY), (320.0, text[:1] + " " + _BODY)):
            meta = (("column", "0"), ("font_size", "10"), ("page_height", "792"))
            out.append(Block(kind="paragraph", text=t, page=page, bbox=BBox(72.0, y0, 540.0, y0 + 12.0), meta=meta))
    return out


def _repeat_stages(text: str) -> dict:
    """The boilerplate stages on blocks holding the text, with its length cap lifted so they see it."""
    from docclean_assets.extract import boilerplate as bp
    from docclean_assets.extract.settings import BoilerplateSettings

    s = BoilerplateSettings(max_chars=10 * len(text) + 10)
    blocks = _blocks(text)
    page = bp.blocks_to_page_repeats("doc", blocks, 4, s)
    short = bp.blocks_to_page_repeats("doc", _blocks(text, pages=1), 1, s)
    template = bp.docs_to_template_repeats(((f"d{i}", blocks) for i in range(3)), s)
    kept = bp.apply_repeats("doc", blocks, page + template, s)
    return {"page": page, "short": short, "template": template, "kept": kept}


def _stages() -> dict:
    from docclean_assets.extract import boilerplate as bp
    from docclean_assets.extract import normalize as nz
    from docclean_assets.extract.api import extract_document
    from docclean_assets.extract.continuations import blocks_to_joined_paragraphs
    from docclean_assets.extract.html.jsonld import body_paragraphs, unescape_all
    from docclean_assets.extract.model import Block, DocReport
    from docclean_assets.extract.office.common import tidy
    from docclean_assets.extract.quality import document_figures

    def continuation(t: str) -> int:
        first = Block(kind="paragraph", text=_BODY + " distri-", page=1, meta=(("column", "0"),))
        second = Block(kind="paragraph", text="b" + t, page=1, meta=(("column", "1"),))
        return sum(len(b.text) for b in blocks_to_joined_paragraphs([first, second]))

    return {
        "normalize_blocks": lambda t: sum(len(b.text) for b in nz.normalize_blocks(_blocks(t), fmt="pdf")),
        "dehyphenate": lambda t: len(nz.dehyphenate(t, nz.vocabulary([t]))),
        "vocabulary": lambda t: len(nz.vocabulary([t, t.lower()])),
        "clean_chars": lambda t: len(nz.clean_chars(t)),
        "collapse_whitespace": lambda t: len(nz.collapse_whitespace(t, True)) + len(nz.collapse_whitespace(t, False)),
        "blocks_to_joined_paragraphs": continuation,
        "pattern_of": lambda t: len(bp.pattern_of(t)) + len(bp.template_pattern_of(t)),
        "boilerplate": lambda t: sum(len(v) for v in _repeat_stages(t).values()),
        "tidy": lambda t: len(tidy(t)),
        "json-ld body": lambda t: len(body_paragraphs(t)[0]) + len(unescape_all(t)),
        "quality": lambda t: document_figures(_blocks(t), DocReport(format="pdf", raw_chars=len(t)))["kept_chars"],
        "extract_html": lambda t: len(extract_document(token_page(t), "html").blocks),
        "regexes": lambda t: sum(len(p.findall(t if isinstance(p.pattern, str) else t.encode()))
                                 for _name, p in module_regexes()),
    }


# Modules whose regular expressions see input text.
TEXT_MODULES = ("normalize", "boilerplate", "quality", "office.common", "html.document", "html.dom", "html.comments",
                "html.jsonld", "html.lede", "html.match", "guard", "sniff")
# Patterns only ever applied to a bounded slice of the input, named with the bound.
BOUNDED = {"html.document._META_CHARSET": "the first 4 KiB", "html.document._XML_ENCODING": "the first 4 KiB"}


def module_regexes() -> list:
    """(module.name, compiled pattern) of every module-level regex of TEXT_MODULES, bounded ones left out."""
    import importlib
    import re

    out = []
    for mod in TEXT_MODULES:
        module = importlib.import_module(f"docclean_assets.extract.{mod}")
        out += [(f"{mod}.{name}", value) for name, value in vars(module).items()
                if isinstance(value, re.Pattern) and f"{mod}.{name}" not in BOUNDED]
    return out


def run_stage(blob: str, stage: str, **_options) -> int:
    """Run one text stage on the text in `blob` (UTF-8) and return the size of what it made: the
    worker's time limit is the deadline."""
    with open(blob, encoding="utf-8") as fh:
        text = fh.read()
    return _stages()[stage](text)


STAGE_NAMES = ("normalize_blocks", "dehyphenate", "vocabulary", "clean_chars", "collapse_whitespace",
               "blocks_to_joined_paragraphs", "pattern_of", "boilerplate", "tidy", "json-ld body", "quality",
               "extract_html", "regexes")
