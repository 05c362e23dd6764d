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
    return None


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
