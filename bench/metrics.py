"""Quality metrics: each benchmark's own scoring, reproduced, plus content similarity helpers."""
from __future__ import annotations

import random
import re
import statistics
import unicodedata
from collections import Counter

# --- scrapinghub/article-extraction-benchmark evaluate.py (token 4-gram shingles) ---------------
_AEB_TOKEN_RE = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.IGNORECASE | re.DOTALL)


def aeb_tokenize(text: str) -> list[str]:
    """The benchmark's tokenisation: \\w+ runs (case kept)."""
    return _AEB_TOKEN_RE.findall(text or "")


def aeb_ngrams(text: str, n: int = 4) -> list[tuple[str, ...]]:
    """Token n-gram shingles; a text shorter than n gives one shorter shingle (as upstream)."""
    tokens = aeb_tokenize(text)
    return [tuple(tokens[i:i + n]) for i in range(0, max(1, len(tokens) - n + 1)) if tokens[i:i + n]]


def aeb_tp_fp_fn(true: str, pred: str, n: int = 4) -> tuple[float, float, float]:
    """Shingle TP/FP/FN of one document, normalised to sum to 1 (upstream string_shingle_matching)."""
    t, p = Counter(aeb_ngrams(true, n)), Counter(aeb_ngrams(pred, n))
    tp = fp = fn = 0.0
    for key in set(t) | set(p):
        tp += min(t[key], p[key])
        fp += max(0, p[key] - t[key])
        fn += max(0, t[key] - p[key])
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s > 0 else (tp, fp, fn)


def _prec(tp, fp, fn):
    return 1.0 if fp == fn == 0 else 0.0 if tp == fp == 0 else tp / (tp + fp)


def _rec(tp, fp, fn):
    return 1.0 if fp == fn == 0 else 0.0 if tp == fn == 0 else tp / (tp + fn)


def aeb_metrics(tp_fp_fns: list[tuple[float, float, float]]) -> dict[str, float]:
    """Macro precision and recall over documents, F1 from those two means (upstream averaging)."""
    ps = [_prec(*x) for x in tp_fp_fns if x[0] + x[1] > 0]
    rs = [_rec(*x) for x in tp_fp_fns if x[0] + x[2] > 0]
    p = statistics.mean(ps) if ps else 0.0
    r = statistics.mean(rs) if rs else 0.0
    return {"f1": 2 * p * r / (p + r) if p + r else 0.0, "precision": p, "recall": r}


def aeb_evaluate(pairs: list[tuple[str, str]], n_bootstrap: int = 1000, seed: int = 0) -> dict:
    """(true, pred) pairs -> f1/precision/recall plus 1.96*stdev bootstrap intervals (upstream)."""
    tfs = [aeb_tp_fp_fn(t, p) for t, p in pairs]
    out = aeb_metrics(tfs)
    rng, vals = random.Random(seed), {}
    for _ in range(n_bootstrap if len(tfs) > 1 else 0):
        sample = [tfs[rng.randint(0, len(tfs) - 1)] for _ in tfs]
        for k, v in aeb_metrics(sample).items():
            vals.setdefault(k, []).append(v)
    for k, v in vals.items():
        out[f"{k}_ci"] = 1.96 * statistics.stdev(v)
    return out


# --- olmOCR-bench present / absent / order checks ------------------------------------------------
_OLMO_REPL = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
              "\uff3f": "_", "\u2013": "-", "\u2014": "-", "\u2011": "-", "\u2012": "-", "\u2212": "-",
              "\u00b5": "\u03bc"}


def olmo_normalize(s: str) -> str:
    """olmOCR-bench normalize_text: markup-light Markdown stripping, whitespace, NFC, punctuation."""
    s = re.sub(r"<br/?>", " ", s)
    s = re.sub(r"\*\*(.*?)\*\*", r"\1", s)
    s = re.sub(r"__(.*?)__", r"\1", s)
    s = re.sub(r"</?b>", "", s)
    s = re.sub(r"</?i>", "", s)
    s = re.sub(r"(\*\*|__)(.*?)\1", r"\2", s)
    s = re.sub(r"(\*|_)(.*?)\1", r"\2", s)
    s = re.sub(r"\s+", " ", s)
    s = unicodedata.normalize("NFC", s)
    for a, b in _OLMO_REPL.items():
        s = s.replace(a, b)
    return s


def olmo_check(test: dict, text: str) -> bool | None:
    """Run one olmOCR-bench test on a system's text; None for types this bench does not score."""
    from rapidfuzz import fuzz

    kind, max_diffs = test["type"], int(test.get("max_diffs", 0))
    content = olmo_normalize(text or "")
    if kind in ("present", "absent"):
        query = olmo_normalize(test["text"])
        if not test.get("case_sensitive", True):
            query, content = query.lower(), content.lower()
        first_n, last_n = test.get("first_n"), test.get("last_n")
        if first_n and last_n:
            content = content[:first_n] + content[-last_n:]
        elif first_n:
            content = content[:first_n]
        elif last_n:
            content = content[-last_n:]
        if len(content) < len(query) - max_diffs:  # upstream length guard
            return kind == "absent"
        threshold = 1.0 - max_diffs / (len(query) or 1)
        found = fuzz.partial_ratio(query, content) / 100.0 >= threshold
        return found if kind == "present" else not found
    if kind == "order":
        from fuzzysearch import find_near_matches

        before = find_near_matches(olmo_normalize(test["before"]), content, max_l_dist=max_diffs)
        after = find_near_matches(olmo_normalize(test["after"]), content, max_l_dist=max_diffs)
        return any(b.start < a.start for b in before for a in after)
    if kind == "table":
        return olmo_table_check(test, content_raw=text or "")
    return None


# --- olmOCR-bench table checks (TableTest with its Markdown and HTML table parsing) ---------------
class OlmoTable:
    """A table as olmOCR-bench sees it: cell texts at (row, col) of their first slot, heading cells
    (Markdown: first row and first column; HTML: th cells and thead rows), and the slot grid."""

    def __init__(self, specs: list[list[tuple[str, int, int, bool]]]) -> None:
        self.text: dict[tuple[int, int], str] = {}
        self.heads: set[tuple[int, int]] = set()
        self.span: dict[tuple[int, int], tuple[int, int]] = {}
        grid: dict[tuple[int, int], tuple[int, int]] = {}
        for r, row in enumerate(specs):
            c = 0
            for text, rowspan, colspan, head in row:
                while (r, c) in grid:
                    c += 1
                cid = (r, c)
                self.text[cid], self.span[cid] = text, (rowspan, colspan)
                if head:
                    self.heads.add(cid)
                for dr in range(rowspan):
                    for dc in range(colspan):
                        grid[(r + dr, c + dc)] = cid
                c += colspan
        self.grid = grid

    def neighbours(self, cid: tuple[int, int], dr: int, dc: int) -> set[tuple[int, int]]:
        """The nearest other cell in direction (dr, dc) from each slot on the cell's edge."""
        (r0, c0), (rs, cs) = cid, self.span[cid]
        starts = ([(r, c0 + cs - 1 if dc > 0 else c0) for r in range(r0, r0 + rs)] if dc else
                  [(r0 + rs - 1 if dr > 0 else r0, c) for c in range(c0, c0 + cs)])
        nrows = 1 + max(r for r, _ in self.grid)
        ncols = 1 + max(c for _, c in self.grid)
        out = set()
        for r, c in starts:
            r, c = r + dr, c + dc
            while 0 <= r < nrows and 0 <= c < ncols:
                other = self.grid.get((r, c))
                if other is not None and other != cid:
                    out.add(other)
                    break
                r, c = r + dr, c + dc
        return out

    def heading(self, cid: tuple[int, int], dr: int, dc: int) -> set[tuple[int, int]]:
        """Heading cells reached walking from the cell (up or left); else the cells at the end."""
        heads, ends, seen, todo = set(), set(), set(), {cid}
        while todo:
            cur = todo.pop()
            seen.add(cur)
            if cur in self.heads:
                heads.add(cur)
            nxt = self.neighbours(cur, dr, dc) - seen
            if not self.neighbours(cur, dr, dc):
                ends.add(cur)
            todo |= nxt
        return (heads - {cid}) or (ends - {cid})


def olmo_markdown_tables(md: str) -> list[OlmoTable]:
    """Tables as olmOCR-bench parses Markdown: runs of lines holding a pipe, the separator row
    dropped, cells split on every pipe (escaped ones too), first row and column as headings."""
    tables, block = [], []
    for line in [*md.strip().split("\n"), ""]:
        if "|" in line:
            block.append(line)
            continue
        if len(block) >= 2:
            rows = []
            sep = next((i for i, ln in enumerate(block)
                        if ln.replace("|", "").strip() and all(ch in "- :" for ch in ln.replace("|", "").strip())), None)
            for i, ln in enumerate(block):
                if i == sep or (ln.strip() and all(ch in "- :|" for ch in ln)):
                    continue
                cells = [c.strip() for c in ln.split("|")]
                if cells and cells[0] == "":
                    cells = cells[1:]
                if cells and cells[-1] == "":
                    cells = cells[:-1]
                if cells:
                    rows.append([(c, 1, 1, not rows or k == 0) for k, c in enumerate(cells)])
            if rows:
                tables.append(OlmoTable(rows))
        block = []
    return tables


def olmo_html_tables(html: str) -> list[OlmoTable]:
    """HTML tables with their row and column spans; th cells and thead rows are headings."""
    if "<table" not in html.lower():
        return []
    from lxml import html as lxml_html

    out = []
    for table in lxml_html.fromstring(html).iter("table"):
        specs = []
        for tr in table.iter("tr"):
            in_head = any(a.tag == "thead" for a in tr.iterancestors())
            specs.append([(" ".join(td.text_content().split()), int(td.get("rowspan", 1) or 1),
                           int(td.get("colspan", 1) or 1), in_head or td.tag == "th")
                          for td in tr if td.tag in ("td", "th")])
        if specs:
            out.append(OlmoTable(specs))
    return out


def olmo_table_check(test: dict, content_raw: str) -> bool:
    """olmOCR-bench TableTest: some cell matching `cell` (fuzzy ratio) whose neighbours up, down,
    left, right and headings (top, left) match the given texts."""
    from rapidfuzz import fuzz

    max_diffs = int(test.get("max_diffs", 0))

    def ok(want: str, got: str) -> bool:
        return fuzz.ratio(want, olmo_normalize(got)) / 100.0 >= max(0.5, 1.0 - max_diffs / (len(want) or 1))

    cell = olmo_normalize(test["cell"])
    relations = {"up": (-1, 0, False), "down": (1, 0, False), "left": (0, -1, False), "right": (0, 1, False),
                 "top_heading": (-1, 0, True), "left_heading": (0, -1, True)}
    for table in olmo_markdown_tables(content_raw) + olmo_html_tables(content_raw):
        for cid, text in table.text.items():
            if not ok(cell, text):
                continue
            good = True
            for key, (dr, dc, walk) in relations.items():
                want = olmo_normalize(test.get(key) or "")
                if not want:
                    continue
                found = table.heading(cid, dr, dc) if walk else table.neighbours(cid, dr, dc)
                if not any(ok(want, table.text[o]) for o in found):
                    good = False
                    break
            if good:
                return True
    return False


# --- content similarity to a Markdown ground truth -----------------------------------------------
def strip_markdown(md: str) -> str:
    """Markdown (or HTML-ish) to plain content: images, links, emphasis, headings, tables, lists."""
    s = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    s = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"<[^>\n]+>", " ", s)
    s = re.sub(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$", " ", s, flags=re.M)
    s = s.replace("|", " ")
    s = re.sub(r"^\s{0,3}#{1,6}\s+", "", s, flags=re.M)
    s = re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", s, flags=re.M)
    s = re.sub(r"^\s*>\s?", "", s, flags=re.M)
    s = re.sub(r"```[^\n]*", " ", s)
    s = re.sub(r"(\*\*|__|\*|_|`|~~)", "", s)
    return s


def content_words(text: str) -> list[str]:
    """Lower-case NFKC word tokens of plain text (\\w+), the unit of content comparison."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())


def token_prf(gt_words: list[str], pred_words: list[str]) -> dict[str, float]:
    """Bag-of-words precision/recall/F1 (multiset overlap)."""
    g, p = Counter(gt_words), Counter(pred_words)
    tp = sum((g & p).values())
    prec = tp / sum(p.values()) if p else (1.0 if not g else 0.0)
    rec = tp / sum(g.values()) if g else 1.0
    return {"precision": prec, "recall": rec, "f1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0}


def edit_similarity(a_words: list[str], b_words: list[str]) -> float:
    """Normalised Indel similarity of the two word sequences joined by spaces (order-sensitive)."""
    from rapidfuzz.distance import Indel

    return Indel.normalized_similarity(" ".join(a_words), " ".join(b_words))


def md_similarity(gt_md: str, pred: str) -> dict[str, float]:
    """Token P/R/F1 and edit similarity of a system's text against a Markdown ground truth."""
    g, p = content_words(strip_markdown(gt_md)), content_words(strip_markdown(pred))
    return {**token_prf(g, p), "edit_sim": edit_similarity(g, p)}


# --- containment on word-normalised text ---------------------------------------------------------
def norm_words(text: str) -> str:
    """Text as ' w1 w2 ... ' (lower-case \\w+ tokens), so containment ignores punctuation/spacing."""
    return " " + " ".join(content_words(text or "")) + " "


def contains(normed_haystack: str, needle: str) -> bool:
    """Whether needle's words occur contiguously (on word boundaries) in a norm_words() haystack."""
    n = norm_words(needle)
    return n.strip() != "" and n in normed_haystack


def share(flags: list[bool]) -> float | None:
    """Fraction of True, None for an empty list."""
    return sum(flags) / len(flags) if flags else None


_TYPO = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
                       "\u00ab": '"', "\u00bb": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})


def typo_fold(s: str) -> str:
    """Typography folded the same way for every system: curly quotes, dashes, NBSP, whitespace runs.
    (A system that normalises quotes must not lose a snippet written with curly ones.)"""
    return " ".join(unicodedata.normalize("NFKC", s).translate(_TYPO).split())


def snippets_score(snips: dict, text: str) -> tuple[list[bool], list[bool]]:
    """trafilatura's evaluation: each 'with' snippet found, each 'without' snippet not found
    (substring test on the extracted text as trafilatura's comparison script does, after the same
    typographic fold of both sides for every system)."""
    text = typo_fold(text or "")
    return ([typo_fold(s) in text for s in snips.get("with", [])],
            [typo_fold(s) not in text for s in snips.get("without", [])])


def revisions_score(revs: dict, body: str) -> tuple[list[bool], list[bool]]:
    """Tracked changes: each deleted fragment absent from the body, each inserted one present."""
    nb = norm_words(body)
    return [not contains(nb, f) for f in revs["deleted"]], [contains(nb, f) for f in revs["inserted"]]


def notes_score(notes: list[str], body: str, notes_text: str | None) -> tuple[list[bool] | None, list[bool]]:
    """Speaker notes: found in the notes stream (None when not separated), and kept out of the body."""
    nb = norm_words(body)
    in_notes = None if notes_text is None else [contains(norm_words(notes_text), n) for n in notes]
    return in_notes, [not contains(nb, n) for n in notes]


def must_include_score(must: list[str], text: str) -> list[bool]:
    """markitdown's test vectors: each string must occur verbatim in the output."""
    return [m in (text or "") for m in must]
