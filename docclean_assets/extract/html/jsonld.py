"""Article bodies published by the page itself in JSON-LD (schema.org), read tolerantly."""
from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterator
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from docclean_assets.extract.guard import check_html_bytes, check_html_depth
from docclean_assets.extract.html.dom import segment
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.model import DocReport
from docclean_assets.extract.settings import LimitSettings

ARTICLE_TYPES = frozenset(
    {"article", "newsarticle", "blogposting", "report", "scholarlyarticle", "techarticle", "reportagenewsarticle",
     "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "socialmediaposting",
     "liveblogposting", "medicalscholarlyarticle", "advertisertcontentarticle", "satiricalarticle", "posting",
     "discussionforumposting", "apireference"}
)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# Where the recovery of broken JSON tries again after a failed parse. A failure costs the characters
# up to where it failed (read by the decoder, then again by its error's line count); the recovery
# gives up past this many per script (about a second): retrying at every "[" of "[x[x[x..." or of
# unclosed nested arrays was quadratic (2 MB: over 5 minutes).
_OPENER = re.compile(r"[{\[]")
_RECOVERY_CHARS = 1 << 25
# The articleBody string of JSON too broken to parse; the escapes loop unrolled (one class per run
# of plain characters instead of one alternation per character), same matches.
_ARTICLE_BODY = re.compile(r'"articleBody"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)


def _loads(raw: str) -> Any:
    """json.loads that survives the usual publisher mistakes; None when nothing parses."""
    raw = raw.strip().removeprefix("<!--").removesuffix("-->").strip()
    raw = raw.removeprefix("//<![CDATA[").removesuffix("//]]>").strip()
    for candidate in (raw, _TRAILING_COMMA.sub(r"\1", _CONTROL.sub(" ", raw))):
        try:
            return json.loads(candidate, strict=False)
        except ValueError:
            pass
    # several objects concatenated, or garbage after the first object
    decoder = json.JSONDecoder(strict=False)
    found, pos, text = [], 0, _TRAILING_COMMA.sub(r"\1", _CONTROL.sub(" ", raw))
    reads_left = _RECOVERY_CHARS
    while reads_left > 0 and (opener := _OPENER.search(text, pos)) is not None:
        start = opener.start()
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError as exc:  # a JSONDecodeError has its offset; a 5000-digit number has none
            reads_left -= getattr(exc, "pos", len(text)) + 1
            pos = start + 1
            continue
        found.append(obj)
        pos = end
    if found:
        return found
    # last resort: the articleBody string on its own, from JSON too broken to parse as a whole
    m = _ARTICLE_BODY.search(raw)
    if m:
        try:
            return {"@type": "Article", "articleBody": json.loads(f'"{m.group(1)}"', strict=False)}
        except ValueError:
            return None
    return None


def _walk(obj: Any, max_depth: int, depth: int = 0) -> Iterator[dict]:
    if depth > max_depth:
        return
    if isinstance(obj, list):
        for item in obj:
            yield from _walk(item, max_depth, depth + 1)
    elif isinstance(obj, dict):
        yield obj
        for value in obj.values():
            if isinstance(value, (dict, list)):
                yield from _walk(value, max_depth, depth + 1)


def _types(node: dict) -> set[str]:
    t = node.get("@type", "")
    values = t if isinstance(t, list) else [t]
    return {str(v).rsplit("/", 1)[-1].lower() for v in values}


def jsonld_scripts(tree: LexborHTMLParser, report: DocReport | None = None) -> list[Any]:
    """The parsed content of every `application/ld+json` script of the page. A script nested too
    deep for the JSON parser costs that script (`report.part_failed`), not the page."""
    out = []
    scripts = [s for s in tree.css("script")
               if (s.attributes.get("type") or "").strip().lower() == "application/ld+json"]
    for n, script in enumerate(scripts, start=1):
        try:
            out.append(_loads(script.text(deep=True, strip=False) or ""))
        except RecursionError:
            if report is not None:
                report.part_failed("json-ld", f"script {n} of {len(scripts)} is nested too deep to parse")
    return out


def json_nodes(scripts: list[Any], max_depth: int) -> Iterator[dict]:
    """Every object of the parsed JSON-LD scripts (see jsonld_scripts), nested ones included down to
    `max_depth` levels (HtmlSettings.jsonld_max_depth)."""
    for obj in scripts:
        yield from _walk(obj, max_depth)


def article_bodies(scripts: list[Any], max_depth: int) -> list[tuple[str, str]]:
    """(type, articleBody) of every article-like JSON-LD node with a non-empty body, longest first."""
    out: list[tuple[str, str]] = []
    for node in json_nodes(scripts, max_depth):
        body = node.get("articleBody") if _types(node) & ARTICLE_TYPES else None
        if isinstance(body, list):
            body = "\n\n".join(str(b) for b in body if isinstance(b, str))
        if isinstance(body, str) and body.strip():
            out.append((sorted(_types(node) & ARTICLE_TYPES)[0], body))
    out.sort(key=lambda tb: -len(tb[1]))
    return out


# A tag of the kinds articleBody markup uses is its name after "<" with a ">" anywhere later (see
# has_markup: matching "[^>]*>" after each "<" rescanned the text to its end, quadratic on "<p <p <p").
_MARKUP_TAG = re.compile(r"</?(p|br|div|h[1-6]|li|ul|ol|span|a|img|em|strong|b|i|iframe|blockquote|figure|table)\b", re.I)


_ESCAPED_BREAK = re.compile(r"\\r\\n|\\n|\\r")
_ENTITY = re.compile(r"&(#\d+|#x[0-9a-f]+|[a-z]+\d*);", re.I)
# Publishers escape a body up to three times (&amp;amp;quot;); more is not text any more.
_MAX_UNESCAPES = 3


def unescape_all(text: str) -> str:
    """HTML entities undone however often the publisher escaped them (&amp;quot; -> ")."""
    for _ in range(_MAX_UNESCAPES):
        if not _ENTITY.search(text):
            break
        text = html_lib.unescape(text)
    return text


def has_markup(text: str) -> bool:
    """Whether the text holds an HTML tag of the kinds an articleBody's markup uses."""
    end = text.rfind(">")
    return end >= 0 and _MARKUP_TAG.search(text, 0, end) is not None


def body_paragraphs(body: str, limits: LimitSettings | None = None, hs: HtmlSettings | None = None,
                    ) -> tuple[list[str], bool]:
    """Paragraph texts of an articleBody and whether it was HTML (then parsed as markup, refused
    with an ExtractionError past the page's own size and nesting caps)."""
    # JSON escaped twice leaves "\\n" in the text: several of them and not one real line break
    if "\n" not in body and len(_ESCAPED_BREAK.findall(body)) >= 2:
        body = _ESCAPED_BREAK.sub("\n", body)
    text = body if has_markup(body) else unescape_all(body)
    if has_markup(text):
        limits = limits or LimitSettings()
        html = f"<html><body>{text}</body></html>"
        check_html_bytes(html.encode("utf-8", errors="replace"), limits)  # before the parser, quadratic in depth
        tree = LexborHTMLParser(html)
        check_html_depth(tree.root, limits)
        units = segment(tree, frozenset(), hs or HtmlSettings())
        # bodies escaped twice (&amp;quot;) keep entities after parsing
        return [unescape_all(u.plain) for u in units if u.plain.strip()], True
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [re.sub(r"\s+", " ", p).strip() for p in text.split("\n") if p.strip()], False
