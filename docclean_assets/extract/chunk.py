"""Retrieval chunks from one document's normalised blocks (issue 34).

Three stages, each returning new values: `blocks_to_units` groups kept blocks into units that must
stay together (a heading with what follows it, a list with its lead-in, a table with its title and
captions, a call-out or footnote on its own), each under its heading path; `units_to_chunks` packs
neighbouring units under one heading up to the token budget and splits a longer unit at its natural
seams (sentences, items, rows with the table's header repeated, lines of code); `link_side_chunks`
anchors call-outs, footnotes and speaker notes to the chunk they belong beside (or appends footnotes
to it). Nothing kept is lost: a piece over the budget that has no seam left is kept whole and flagged.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from docclean_assets.extract.chunk_parts import HEADS, blocks_to_part_starts, heading_level
from docclean_assets.extract.chunk_tables import (
    ParsedTable, labels_only, linearize, linearize_rows, markdown, parse_markdown_table, table_part,
)
from docclean_assets.extract.continuations import part_boxes
from docclean_assets.extract.model import BODY_KINDS, BBox, Block, Kind
from docclean_assets.extract.settings import ChunkSettings

# Kept blocks that reach chunks: the body, and the content set beside it. Reviewer comments and margin
# notes (clause numbers, stamps) are not the document's text; pull quotes repeat the body.
CHUNK_KINDS = BODY_KINDS | {Kind.FOOTNOTE, Kind.SPEAKER_NOTES, Kind.IMAGE_TEXT}
# Kinds that make chunks of their own, anchored to the chunk they sit beside.
SIDE_ROLES = {Kind.CALLOUT: "callout", Kind.FOOTNOTE: "footnote", Kind.SPEAKER_NOTES: "notes"}
# A sentence ends at . ! ? (optionally closed by a quote or bracket) before a space and a capital,
# digit or opening quote: "U.S. sales" and "approx. 5" stay whole more often than not.
_SENTENCE = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]?\s+(?=[A-Z0-9\"'\u201c(])")
PATH_SEPARATOR = " > "

# Flags a chunk may carry.
OVER_BUDGET = "over_budget"  # a piece with no seam left (one sentence, row or line) longer than the budget
HEADINGS_ONLY = "headings_only"  # the document ends with headings that have nothing under them
FOOTNOTES_APPENDED = "footnotes_appended"


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrieval chunk of a document: its text, the text to embed (heading path first, tables
    without pipes, as their labels or labelled values), and where every block in it came from."""

    text: str
    embed_text: str
    heading_path: tuple[str, ...]
    role: str  # body | table | callout | footnote | notes
    kinds: tuple[str, ...]  # the kinds of its blocks, each once, in order of appearance
    seqs: tuple[int, ...]  # the blocks it was made from (a split block's seq is in each of its parts)
    # (seq, page, bbox) of each of those blocks; a paragraph joined across a break has one per part
    boxes: tuple[tuple[int, int | None, BBox | None], ...]
    tokens: int
    part: int = 1  # 1-based part of a unit split over several chunks
    parts: int = 1
    anchor: int | None = None  # index of the chunk this one sits beside (side roles)
    flags: tuple[str, ...] = ()

    @property
    def pages(self) -> tuple[int, ...]:
        """The pages its blocks are on, ascending."""
        return tuple(sorted({p for _, p, _ in self.boxes if p is not None}))


@dataclass(slots=True)
class Unit:
    """Blocks that stay together: `heads` open it (a heading never ends a chunk), `leads` are a list's
    lead-in or a table's title lines, repeated in each part when the unit is split."""

    role: str  # text | list | table | code | callout | footnote | notes
    blocks: list[Block]
    path: tuple[str, ...]
    heads: list[Block] = field(default_factory=list)
    leads: list[Block] = field(default_factory=list)
    captions: list[Block] = field(default_factory=list)  # a table's captions after it
    anchor_seq: int | None = None  # side roles: the body block they belong beside


# -- tokens --------------------------------------------------------------------------------------
Counter = Callable[[str], int]


def token_counter(name: str) -> Counter:
    """Counts tokens: "words" splits on whitespace; any other name is a tokenizer.json read offline."""
    if name == "words":
        return lambda text: len(text.split())
    return _file_counter(name)


@lru_cache(maxsize=4)
def _file_counter(path: str) -> Counter:
    """A Hugging Face tokenizer file's token count (no special tokens)."""
    try:
        from tokenizers import Tokenizer  # only when a user names a tokenizer file
    except ImportError:
        raise ValueError(f"settings.chunk.tokenizer names a file ({path}): pip install 'docclean[tokenizers]'") from None
    try:
        tok = Tokenizer.from_file(path)
    except Exception as exc:  # noqa: BLE001 - a missing or malformed file: one clear line
        raise ValueError(f"settings.chunk.tokenizer: cannot read {path}: {exc}") from None
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


# -- stage 1: units --------------------------------------------------------------------------------
def _is_lead_in(b: Block, s: ChunkSettings, count: Counter) -> bool:
    """A short paragraph ending in a colon: it introduces what follows."""
    return b.kind == Kind.PARAGRAPH and b.text.rstrip().endswith(":") and count(b.text) <= s.lead_in_max_tokens


def kept_for_chunks(blocks: Sequence[Block]) -> list[Block]:
    """The blocks chunks are made of, in reading order: kept, of a chunked kind, with text."""
    return sorted((b for b in blocks if b.drop_reason is None and b.kind in CHUNK_KINDS and b.text.strip()),
                  key=lambda b: b.seq)


def blocks_to_units(blocks: Sequence[Block], s: ChunkSettings, count: Counter) -> list[Unit]:
    """Group kept blocks into units under their heading paths."""
    stack: list[tuple[int, str, bool]] = []  # (level, heading text, set on the first page); the title is level 0
    pending: list[Block] = []  # headings waiting for the content they open
    units: list[Unit] = []
    last_body: int | None = None
    kept = kept_for_chunks(blocks)
    parts = blocks_to_part_starts(blocks, s)
    first_page = min((b.page for b in kept if b.page is not None), default=None)
    for b in kept:
        if b.kind in HEADS:
            level = heading_level(b)
            if b.seq in parts:  # a new part: only the title and the file's first page head it
                stack = [e for e in stack if e[0] == 0 or e[2]]
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, " ".join(b.text.split()), b.page is not None and b.page == first_page))
            pending.append(b)
            continue
        path = tuple(t for _, t, _ in stack)
        if b.kind in SIDE_ROLES:
            units.append(Unit(SIDE_ROLES[b.kind], [b], path, anchor_seq=b.anchor if b.anchor is not None else last_body))
            continue
        # the last unit of the flow (side units sit beside it: a call-out never cuts a list in two)
        at = next((i for i in range(len(units) - 1, -1, -1) if units[i].role not in SIDE_ROLES.values()), None)
        prev = units[at] if at is not None and not pending else None
        if b.kind == Kind.LIST_ITEM and prev is not None and prev.role == "list" and prev.path == path:
            prev.blocks.append(b)
        elif b.kind == Kind.CAPTION and prev is not None and prev.role == "table" and prev.path == path:
            prev.captions.append(b)  # a caption under its table
        elif b.kind in (Kind.LIST_ITEM, Kind.TABLE):
            taken = _take_leads(units, at, path, b, s, count) if prev is not None else []
            units.append(Unit("list" if b.kind == Kind.LIST_ITEM else "table", [b], path,
                              heads=taken[0].heads if taken else pending,
                              leads=[u.blocks[0] for u in taken]))
        else:
            units.append(Unit("code" if b.kind == Kind.CODE else "text", [b], path, heads=pending))
        pending = []
        last_body = b.seq
    if pending:  # headings with nothing under them: kept, as a chunk of their own
        units.append(Unit("text", [], tuple(t for _, t, _ in stack), heads=pending))
    return units


def _is_title_line(b: Block, table: Block, s: ChunkSettings, count: Counter) -> bool:
    """A short line set right above a table on its page that is no sentence: the table's title, unit or
    period ("Consolidated Statements of Cash Flows", "(in millions)"), which a split table repeats."""
    same_page = b.page is None or table.page is None or b.page == table.page
    text = b.text.strip()
    return (b.kind in (Kind.PARAGRAPH, Kind.CAPTION) and same_page and count(text) <= s.lead_in_max_tokens
            and not text.endswith((".", "!", "?", ";", ",")) and (text[0].isupper() or text[0] in "(0123456789"))


def _take_leads(units: list[Unit], at: int, path: tuple[str, ...], first: Block, s: ChunkSettings,
                count: Counter) -> list[Unit]:
    """Remove and return the flow's units just before a list or table that lead into it: a list's
    lead-in; a table's lead-in, caption or title lines (together within the lead-in budget)."""
    def single(u: Unit) -> Block | None:
        return u.blocks[0] if u.role == "text" and len(u.blocks) == 1 and u.path == path else None

    b = single(units[at])
    if b is None:
        return []
    if _is_lead_in(b, s, count) or (first.kind == Kind.TABLE and b.kind == Kind.CAPTION):
        return [units.pop(at)]
    if first.kind != Kind.TABLE:
        return []
    start, tokens = at + 1, 0
    # back over consecutive title lines; a unit opened by headings is the first one taken
    while start > 0 and (t := single(units[start - 1])) is not None and _is_title_line(t, first, s, count):
        tokens += count(t.text)
        if tokens > s.lead_in_max_tokens:
            break
        start -= 1
        if units[start].heads:
            break
    taken = units[start:at + 1]
    del units[start:at + 1]
    return taken


# -- stage 2: chunks -------------------------------------------------------------------------------
@dataclass(slots=True)
class _Piece:
    """A unit's smallest part that the splitter keeps whole: a sentence, an item, a row, a line."""

    text: str
    embed: str
    block: Block
    tokens: int


def _text_pieces(b: Block, count: Counter) -> list[_Piece]:
    """A paragraph's sentences (a code block's lines)."""
    parts = b.text.splitlines() if b.kind == Kind.CODE else _SENTENCE.split(b.text)
    return [_Piece(p, p, b, count(p)) for p in parts if p.strip()]


def _windows(piece: _Piece, budget: int, count: Counter) -> list[_Piece]:
    """A piece over the budget cut into runs of whole words under it (a sentence of a few hundred
    words is a list or a table set as prose); pieces within the budget as they are."""
    if piece.tokens <= budget:
        return [piece]
    words = piece.text.split()
    per = math.ceil(len(words) / math.ceil(piece.tokens / budget))  # balanced runs, no stub at the end
    runs = [" ".join(words[i:i + per]) for i in range(0, len(words), per)]
    return [_Piece(r, r, piece.block, count(r)) for r in runs]


# However long the text a split unit's parts carry besides their own (its opening headings, a list's
# lead-in, a table's title, header and captions), each part's own text may take at least this share of
# `max_tokens`: such parts run over the budget (flagged) rather than shrink to a word or a row each, as
# under a run of bold contract clauses taken for headings (a filing's exhibit: 514 one-word parts).
_MIN_OWN_SHARE = 0.5


def _part_budget(besides: int, s: ChunkSettings) -> int:
    """The tokens a part of a split unit has for its own text, besides the `besides` ones."""
    return max(s.max_tokens - besides, math.ceil(_MIN_OWN_SHARE * s.max_tokens))


def _balanced(sizes: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """Cut a run of pieces into the fewest parts under the budget, of near-equal size: [start, stop)."""
    total = sum(sizes)
    n = max(1, math.ceil(total / budget))
    target = total / n
    ranges, start, acc, done = [], 0, 0, 0
    for i, size in enumerate(sizes):
        # close the part before this piece when it would overflow, or when the piece lies mostly past
        # the part's share of the total (cumulative, so rounding never piles up in the last part)
        past = done + acc + size / 2 > target * (len(ranges) + 1) and len(ranges) < n - 1
        if i > start and (acc + size > budget or past):
            ranges.append((start, i))
            start, done, acc = i, done + acc, 0
        acc += size
    ranges.append((start, len(sizes)))
    return ranges


def _join(texts: Sequence[str], sep: str = "\n\n") -> str:
    return sep.join(t for t in texts if t)


def _context(path: tuple[str, ...], heads: Sequence[Block]) -> str:
    """The heading path an embedding needs besides the headings already in the chunk's text."""
    shown = {" ".join(h.text.split()) for h in heads}
    return PATH_SEPARATOR.join(p for p in path if p not in shown)


def _make(unit: Unit, role: str, texts: list[str], embeds: list[str], blocks: list[Block], count: Counter,
          s: ChunkSettings, part: int = 1, parts: int = 1, flags: tuple[str, ...] = ()) -> Chunk:
    """A chunk from the texts and blocks of (a part of) a unit, its opening headings first."""
    heads = unit.heads if part == 1 else []
    text = _join([h.text for h in heads] + texts)
    context = _context(unit.path, heads)
    embed = _join([context] + [h.text for h in heads] + embeds)
    tokens = count(text)
    over = (OVER_BUDGET,) if tokens > s.max_tokens and OVER_BUDGET not in flags else ()
    seen: dict[int, Block] = {}
    for b in [*heads, *blocks]:
        seen.setdefault(b.seq, b)
    kinds = tuple(dict.fromkeys(b.kind for b in seen.values()))
    boxes = tuple((b.seq, page, bbox) for b in seen.values() for page, bbox in part_boxes(b))
    return Chunk(text, embed, unit.path, role, kinds, tuple(seen), boxes, tokens, part, parts, flags=flags + over)


def unit_to_chunks(unit: Unit, s: ChunkSettings, count: Counter) -> list[Chunk]:
    """One unit as one chunk, or split at its seams into parts under the budget."""
    if unit.role == "table":
        return _table_chunks(unit, s, count)
    lead = list(unit.leads)
    role = unit.role if unit.role in SIDE_ROLES.values() else "body"
    texts = [b.text for b in lead + unit.blocks]
    sep = "\n" if unit.role == "list" else "\n\n"
    whole = _make(unit, role, [_join(texts, sep)], [_join(texts, sep)], lead + unit.blocks, count, s)
    if whole.tokens <= s.max_tokens or (not unit.blocks):
        return [whole]
    budget = _part_budget(count(_join([h.text for h in unit.heads] + [b.text for b in lead])), s)
    if unit.role == "list":
        pieces = [_Piece(b.text, b.text, b, count(b.text)) for b in unit.blocks]
    else:
        pieces = [p for b in unit.blocks for p in _text_pieces(b, count)]
    if unit.role != "code":  # prose and items have word seams; a line of code is kept whole
        pieces = [w for p in pieces for w in _windows(p, budget, count)]
    ranges = _balanced([p.tokens for p in pieces], budget)
    if len(ranges) == 1:
        return [whole]  # one piece with no seam left: kept whole, flagged over_budget by _make
    out = []
    for k, (a, z) in enumerate(ranges, start=1):
        chosen = pieces[a:z]
        body = _join([p.text for p in chosen], {"text": " ", "code": "\n"}.get(unit.role, sep))
        lead_text = [b.text for b in lead]
        out.append(_make(unit, role, [_join(lead_text + [body], sep)], [_join(lead_text + [body], sep)],
                         lead + [p.block for p in chosen], count, s, k, len(ranges)))
    return out


def _table_chunks(unit: Unit, s: ChunkSettings, count: Counter) -> list[Chunk]:
    """A table with its title and captions: one chunk when it fits, else parts of whole rows that
    each repeat the title and header."""
    table_block = unit.blocks[0]
    titles = list(unit.leads)
    parsed = parse_markdown_table(table_block.text, s.table_header_max_rows)
    frame = [b.text for b in titles]
    after = [b.text for b in unit.captions]
    blocks = titles + [table_block] + unit.captions
    if parsed is None:  # a fallback (description + text): split by lines, its captions kept with it
        text_unit = Unit("code", [table_block, *unit.captions], unit.path, unit.heads, unit.leads)
        return [replace(c, role="table") for c in unit_to_chunks(text_unit, s, count)]
    embed = linearize if s.embed_table_figures else (lambda t: labels_only(markdown(t)))
    whole = _make(unit, "table", frame + [table_block.text] + after, frame + [embed(parsed)] + after,
                  blocks, count, s)
    if whole.tokens <= s.max_tokens or len(parsed.rows) <= 1:
        return [whole]
    header = markdown(table_part(parsed, 0, 0))
    whole_labels, lines = linearize_rows(parsed)
    budget = _part_budget(count(_join([h.text for h in unit.heads] + frame + [header, whole_labels] + after)), s)
    # a row costs what the longer of its two forms costs: its Markdown, or its labelled values (whichever
    # form embed_text takes: the cut, and so the chunk ids, do not depend on embed_table_figures)
    sizes = [max(count(r), count(line)) for r, line in zip(parsed.rows, lines)]
    ranges = _balanced(sizes, budget)
    out = []
    for k, (a, z) in enumerate(ranges, start=1):
        part = table_part(parsed, a, z)
        out.append(_make(unit, "table", frame + [markdown(part)] + after, frame + [embed(part)] + after,
                         blocks, count, s, k, len(ranges)))
    return out


def units_to_chunks(units: Sequence[Unit], s: ChunkSettings, count: Counter) -> tuple[list[Chunk], list[int | None]]:
    """Pack neighbouring text units under one heading path up to the budget; tables, split units and
    side units stand alone. Also the anchor seq of each chunk (side chunks; None for the others)."""
    chunks: list[Chunk] = []
    anchors: list[int | None] = []
    open_: list[tuple[Unit, Chunk]] = []  # text units packed into the chunk being filled
    open_tokens = 0

    for unit in units:
        made = unit_to_chunks(unit, s, count)
        if unit.role in SIDE_ROLES.values():
            chunks.extend(made)  # beside the body: the chunk being filled goes on after them
            anchors.extend([unit.anchor_seq] * len(made))
            continue
        mergeable = unit.role in ("text", "list", "code") and len(made) == 1 and OVER_BUDGET not in made[0].flags
        if open_ and (unit.heads or not mergeable or open_[0][0].path != unit.path
                      or open_tokens + made[0].tokens > s.max_tokens):
            chunks.append(_merge(open_, count))
            anchors.append(None)
            open_, open_tokens = [], 0
        if mergeable:
            open_.append((unit, made[0]))
            open_tokens += made[0].tokens
        else:
            chunks.extend(made)
            anchors.extend([None] * len(made))
    if open_:
        chunks.append(_merge(open_, count))
        anchors.append(None)
    return chunks, anchors


def _merge(packed: Sequence[tuple[Unit, Chunk]], count: Counter) -> Chunk:
    """Text units under one heading path as one chunk."""
    if len(packed) == 1:
        return packed[0][1]
    made = [c for _, c in packed]
    first = packed[0][0]
    text = _join([c.text for c in made])
    embed = _join([_context(first.path, first.heads)] + [c.text for c in made])
    seqs = tuple(dict.fromkeys(q for c in made for q in c.seqs))
    boxes = {box[0]: box for c in made for box in c.boxes}
    return Chunk(text, embed, first.path, "body", tuple(dict.fromkeys(k for c in made for k in c.kinds)), seqs,
                 tuple(boxes[q] for q in seqs), count(text))


# -- stage 3: side chunks --------------------------------------------------------------------------
def link_side_chunks(chunks: list[Chunk], anchors: list[int | None], s: ChunkSettings, count: Counter) -> list[Chunk]:
    """Anchor each side chunk to the body chunk holding its anchor block (or the last one before it);
    with `footnotes: append`, a footnote that fits joins that chunk instead."""
    body = [i for i, c in enumerate(chunks) if anchors[i] is None]
    holder = {q: i for i in body for q in chunks[i].seqs}
    out = list(chunks)
    gone: set[int] = set()
    for i, seq in enumerate(anchors):
        if seq is None and chunks[i].role not in SIDE_ROLES.values():
            continue
        target = holder.get(seq) if seq is not None else None
        if target is None and seq is not None:
            target = max((j for j in body if min(chunks[j].seqs, default=seq + 1) <= seq), default=None)
        side = chunks[i]
        if (s.footnotes == "append" and side.role == "footnote" and target is not None
                and out[target].tokens + side.tokens <= s.max_tokens):
            host = out[target]
            out[target] = replace(host, text=_join([host.text, side.text]), embed_text=_join([host.embed_text, side.text]),
                                  kinds=tuple(dict.fromkeys((*host.kinds, *side.kinds))), seqs=host.seqs + side.seqs,
                                  boxes=host.boxes + side.boxes, tokens=count(_join([host.text, side.text])),
                                  flags=tuple(dict.fromkeys((*host.flags, FOOTNOTES_APPENDED))))
            gone.add(i)
        else:
            out[i] = replace(side, anchor=target)
    kept = [i for i in range(len(out)) if i not in gone]
    new_index = {old: new for new, old in enumerate(kept)}
    return [replace(out[i], anchor=new_index.get(out[i].anchor)) if out[i].anchor is not None else out[i] for i in kept]


def blocks_to_chunks(blocks: Sequence[Block], s: ChunkSettings | None = None) -> list[Chunk]:
    """A document's chunks, in reading order."""
    s = s or ChunkSettings()
    count = token_counter(s.tokenizer)
    units = blocks_to_units(blocks, s, count)
    chunks, anchors = units_to_chunks(units, s, count)
    return [replace(c, flags=(*c.flags, HEADINGS_ONLY)) if set(c.kinds) <= HEADS and HEADINGS_ONLY not in c.flags else c
            for c in link_side_chunks(chunks, anchors, s, count)]


def chunk_ids(doc_key: str, chunks: Sequence[Chunk]) -> list[str]:
    """Each chunk's id: a digest of its document's key, heading path and text (and which occurrence of
    that pair it is), so a chunk keeps its id while its document keeps its key and the chunk its text."""
    seen: dict[tuple, int] = {}
    out = []
    for c in chunks:
        key = (c.heading_path, c.text)
        n = seen.get(key, 0)
        seen[key] = n + 1
        payload = "\x1f".join([doc_key, "\x1e".join(c.heading_path), c.text, str(n)])
        out.append(hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:32])
    return out


def linearized_table(text: str, s: ChunkSettings | None = None) -> str:
    """A table block's text for embedding (labels beside values), or the text when it is no pipe table."""
    s = s or ChunkSettings()
    parsed: ParsedTable | None = parse_markdown_table(text, s.table_header_max_rows)
    return text if parsed is None else linearize(parsed)
