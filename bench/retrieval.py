"""Retrieval benchmark (issue 34): does docclean's text retrieve the evidence page better than other systems'?

    .venv/bin/python -m bench.retrieval            # the 28 filings and 59 questions of financebench_dev
    .venv/bin/python -m bench.retrieval --quick    # 6 filings, the questions on them
    .venv/bin/python -m bench.retrieval --systems pypdfium2,kreuzberg   # peers to compare (docclean always)

On ../shared/corpus/retrieval/financebench_dev/ (FinanceBench filings, questions written by analysts with the
zero-based page of their evidence). docclean is run the way users run it (`docclean run` over a source of the
filings, then its `chunks` table); every other system's page text is cut by one common chunker
(retrieval_eval.pages_to_chunks: ~200 words, blocks kept whole, never across pages), and so are docclean's
own kept blocks, to tell its chunker's share from its cleaning's. Each text is searched by BM25 (bm25s) and
by static word embeddings (wordllama, weights in its wheel); a question is a hit at k when one of the k best
chunks is on an evidence page of its filing. Scopes: the question's filing, and all filings at once.
Writes bench/out/retrieval/retrieval.json (figures and each question's ranks) and retrieval.md. Absent
corpus: says so and exits 0. Extracted text is cached per system under bench/out/retrieval/pages/.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.deps import ROOT, ensure_venv, installed_version
from bench.retrieval_eval import (
    RECALL_KS,
    Embedder,
    Passage,
    Question,
    bm25_rank,
    embedding_rank,
    furniture_patterns,
    furniture_share,
    hit_ranks,
    page_blocks,
    pages_to_chunks,
    paired_difference,
    recall_table,
    without_figures,
)

CORPUS = ROOT.parent / "shared" / "corpus" / "retrieval" / "financebench_dev"
OUT = ROOT / "bench" / "out" / "retrieval"
PEERS = ("pypdfium2", "pdfplumber", "kreuzberg", "pymupdf4llm")
PROJECT_VENV_PEERS = {"pypdfium2", "pdfplumber"}  # dependencies of docclean itself
QUICK_FILINGS = 6
TOP_K = max(RECALL_KS)
SCOPES = ("filing", "all")
RETRIEVERS = ("bm25", "embeddings")
DOCCLEAN_PREFIX = "docclean"  # rows named so are docclean's, never "the best other system"
CONTROL_PREFIX = "control"  # nor are rows named so: another system's text with a transform of ours
CONTROL_SYSTEM = "pypdfium2"  # the raw text layer, with its figures left out


def log(msg: str) -> None:
    print(f"[retrieval] {msg}", file=sys.stderr, flush=True)


def load_questions(corpus: Path) -> list[Question]:
    """The questions with their 1-based evidence pages in their own filing."""
    out = []
    for line in (corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            pages = frozenset(int(e["evidence_page_num"]) + 1 for e in q["evidence"] if e["doc_name"] == q["doc_name"])
            out.append(Question(q["financebench_id"], q["doc_name"], q["question"], pages))
    return out


# --- docclean: `docclean run` over a folder of the filings, then its tables -------------------------
def run_docclean(files: list[Path], work: Path) -> dict:
    """`docclean run` on a source holding these files, into work/docclean; its wall seconds. The whole
    corpus is read in place; a subset is copied (docclean refuses links that leave the source's folder)."""
    folder = files[0].parent
    if len(files) < len(list(folder.glob("*.pdf"))):
        folder = work / "filings"
        folder.mkdir(parents=True, exist_ok=True)
        wanted = {f.name for f in files}
        for old in folder.iterdir():
            if old.name not in wanted:
                old.unlink()
        for f in files:
            if not (folder / f.name).exists():
                shutil.copyfile(f, folder / f.name)
    (work / "sources.yaml").write_text(f"sources:\n  filings:\n    path: {folder}\n"
                                       "settings:\n  limits:\n    workers: 2\n")
    home = work / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    cmd = [str(Path(sys.executable).with_name("docclean")), "run", "--sources", str(work / "sources.yaml"),
           "--data-dir", str(work / "docclean"), "--quiet"]
    start = time.monotonic()
    with open(work / "docclean_run.log", "w") as out:
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"docclean run failed (exit {proc.returncode}); see {work / 'docclean_run.log'}")
    return {"wall_s": round(time.monotonic() - start, 1), "failed_documents": _failed(work / "docclean")}


def _failed(data_dir: Path) -> dict[str, str]:
    """path -> error of the filings docclean could not parse (their pages then hold no chunk)."""
    from docclean_assets.store.tables import Store
    from docclean_assets.pipeline.schemas import DOCS_SCHEMA

    docs = Store(str(data_dir)).read("parsed_documents", "filings", DOCS_SCHEMA, columns=["path", "status", "error"])
    return {d["path"]: d["error"] or "" for d in (docs.to_pylist() if docs is not None else []) if d["status"] != "ok"}


def docclean_rows(work: Path, budgets: list[int] = ()) -> dict[str, list[Passage]]:
    """docclean's own chunks (embed text, bare text), its kept blocks under the common chunker, and
    its chunker run again on those blocks at other token `budgets` (a sensitivity check of
    `settings.chunk.max_tokens`, not the pipeline's output)."""
    from docclean_assets.extract.chunk import CHUNK_KINDS, blocks_to_chunks
    from docclean_assets.extract.settings import ChunkSettings
    from docclean_assets.pipeline.search import lexical_text, read_chunks
    from docclean_assets.store.tables import Store
    from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, table_to_blocks

    store = Store(str(work / "docclean"))
    chunks = read_chunks("filings", store=store, columns=["path", "pages", "role", "heading_path", "text", "embed_text"]).to_pylist()
    rows: dict[str, list[Passage]] = {"docclean chunks": [], "docclean chunks, bare text": []}
    for c in chunks:
        doc, pages = Path(c["path"]).stem, tuple(c["pages"] or ())
        # as a user indexes them: embed_text embedded, lexical_text under BM25 (`docclean search`)
        rows["docclean chunks"].append(Passage(doc, pages, c["embed_text"], lexical_text(c["heading_path"], c["text"], c["role"])))
        rows["docclean chunks, bare text"].append(Passage(doc, pages, c["text"]))
    table = store.read("normalized_blocks", "filings", BLOCKS_SCHEMA)
    by_doc: dict[str, list] = defaultdict(list)  # filing -> its blocks in reading order
    for ref, block in table_to_blocks(table) if table is not None else []:
        by_doc[Path(ref.path).stem].append(block)
    common = []
    for doc, blocks in sorted(by_doc.items()):
        blocks.sort(key=lambda b: b.seq)
        by_page: dict[int, list[str]] = defaultdict(list)
        for b in blocks:
            if b.drop_reason is None and b.kind in CHUNK_KINDS and b.page:
                by_page[b.page].append(b.text)
        if by_page:
            common.extend(pages_to_chunks(doc, [by_page.get(n, []) for n in range(1, max(by_page) + 1)]))
    rows["docclean blocks, common chunker"] = common
    for budget in budgets:
        settings = ChunkSettings(max_tokens=budget)
        rows[f"docclean chunks, {budget} words"] = [
            Passage(doc, c.pages, c.embed_text, lexical_text(c.heading_path, c.text, c.role)) for doc, blocks in sorted(by_doc.items())
            for c in blocks_to_chunks(blocks, settings)]
    return rows


# --- peers: each system's page texts, from a worker in its venv, cached per system -------------------
def peer_pages(system: str, files: list[Path], work: Path) -> tuple[dict[str, list[str]], dict]:
    """{filing: [page text, ...]} for the files, and facts of the run (version, seconds, errors)."""
    cache = work / "pages" / f"{system}.json"
    cached = json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {"docs": {}, "seconds": {}}
    todo = [f for f in files if f.stem not in cached["docs"]]
    if system in PROJECT_VENV_PEERS:
        py, why = Path(sys.executable), None
    else:
        py, why = ensure_venv(system)
    if py is None:
        return {}, {"not_run": why}
    errors = {}
    if todo:
        job = work / "pages" / f"{system}.job.json"
        job.parent.mkdir(parents=True, exist_ok=True)
        job.write_text(json.dumps({"files": [str(f) for f in todo]}))
        log(f"{system}: extracting {len(todo)} filings")
        proc = subprocess.Popen([str(py), str(ROOT / "bench" / "retrieval_pages.py"), system, str(job)],
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
        for line in proc.stdout:
            msg = json.loads(line)
            if "path" in msg:
                if msg["ok"]:
                    cached["docs"][Path(msg["path"]).stem] = msg["pages"]
                    cached["seconds"][Path(msg["path"]).stem] = round(msg["seconds"], 2)
                else:
                    errors[Path(msg["path"]).stem] = msg["error"]
                    log(f"{system}: {Path(msg['path']).name}: {msg['error']}")
        proc.wait()
        cache.write_text(json.dumps(cached))
    version = installed_version(py, system)
    docs = {f.stem: cached["docs"][f.stem] for f in files if f.stem in cached["docs"]}
    seconds = sum(cached["seconds"].get(d, 0.0) for d in docs)
    return docs, {"version": version, "extract_s": round(seconds, 1), "errors": errors}


# --- evaluation ---------------------------------------------------------------------------------------
def evaluate(passages: list[Passage], questions: list[Question], embedder: Embedder) -> dict:
    """Per retriever and scope: each question's first-hit rank and the recall table."""
    if not passages:
        return {}
    vectors = embedder.embed([p.text for p in passages])
    qvecs = embedder.embed([q.text for q in questions])
    by_doc: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(passages):
        by_doc[p.doc].append(i)
    qs_by_doc: dict[str, list[int]] = defaultdict(list)
    for j, q in enumerate(questions):
        qs_by_doc[q.doc].append(j)
    groups = {"all": [(list(range(len(passages))), list(range(len(questions))))],  # (passages, questions)
              "filing": [(by_doc.get(doc, []), js) for doc, js in qs_by_doc.items()]}
    out: dict = {}
    for retriever in RETRIEVERS:
        for scope in SCOPES:
            order: dict[int, list[Passage]] = {}
            for idx, js in groups[scope]:
                pool = [passages[i] for i in idx]
                if not pool:
                    order.update({j: [] for j in js})
                    continue
                if retriever == "bm25":
                    tops = bm25_rank(pool, [questions[j].text for j in js], TOP_K)
                else:
                    tops = embedding_rank(vectors[idx], qvecs[js], TOP_K)
                order.update({j: [pool[i] for i in top] for j, top in zip(js, tops)})
            ranks = hit_ranks(questions, [order[j] for j in range(len(questions))])
            out[f"{retriever}/{scope}"] = {"ranks": ranks, **recall_table(ranks)}
    return out


def page_count(files: list[Path]) -> int:
    """The filings' pages, as PDFium counts them."""
    import pypdfium2 as pdfium

    total = 0
    for f in files:
        pdf = pdfium.PdfDocument(f)
        total += len(pdf)
        pdf.close()
    return total


def chunk_stats(passages: list[Passage]) -> dict:
    """How many chunks and how long, in whitespace words."""
    words = [len(p.text.split()) for p in passages]
    return {"chunks": len(words), "mean_words": round(statistics.fmean(words), 1) if words else 0.0,
            "max_words": max(words, default=0)}


def markdown(result: dict) -> str:
    """The report: one table per scope, the differences to the best other system, the setup."""
    lines = [f"Retrieval on financebench_dev: {result['filings']} filings, {result['pages']} pages, "
             f"{result['questions']} questions ({result['date']}). Page-hit recall, 95% bootstrap intervals "
             "in brackets. Furniture: share of the chunks' words on lines that open or close at least "
             "5 pages of the filing's raw text layer (running heads, feet, page numbers).", ""]
    for scope in SCOPES:
        lines += [f"**Scope: {'the question’s filing' if scope == 'filing' else 'all filings'}**", "",
                  "| text from | BM25 r@1 | BM25 r@5 | BM25 r@10 | emb. r@1 | emb. r@5 | emb. r@10 | chunks | words/chunk | furniture |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for name, row in result["rows"].items():
            cells = []
            for retriever in RETRIEVERS:
                fig = row["eval"].get(f"{retriever}/{scope}", {})
                for k in RECALL_KS:
                    f = fig.get(f"r@{k}")
                    cells.append("-" if f is None else (f"{f['value']:.2f} [{f['ci95'][0]:.2f}, {f['ci95'][1]:.2f}]"
                                                        if k == 5 else f"{f['value']:.2f}"))
            st = row["stats"]
            lines.append(f"| {name} | " + " | ".join(cells)
                         + f" | {st['chunks']} | {st['mean_words']} | {100 * st['furniture_share']:.2f}% |")
        lines.append("")
    for label, diff in result.get("differences", {}).items():
        lines.append(f"- {label}: {diff['value']:+.3f} [{diff['ci95'][0]:+.3f}, {diff['ci95'][1]:+.3f}]")
    failed = result["rows"].get("docclean chunks", {}).get("run", {}).get("failed_documents")
    if failed:
        lines.append(f"- docclean could not parse {len(failed)} filings (no chunks from them): {', '.join(sorted(failed))}")
    for name, facts in result.get("not_run", {}).items():
        lines.append(f"- not run: {name}: {facts}")
    return "\n".join(lines) + "\n"


def differences(rows: dict) -> dict:
    """docclean's chunks minus the best other system at recall@5, per retriever, scope the filing (paired);
    and minus the control (the raw text layer with its figures left out)."""
    out = {}
    others = [n for n in rows if not n.startswith((DOCCLEAN_PREFIX, CONTROL_PREFIX))]
    controls = [n for n in rows if n.startswith(CONTROL_PREFIX)]
    for retriever in RETRIEVERS:
        key = f"{retriever}/filing"
        if not others or key not in rows["docclean chunks"]["eval"]:
            continue
        best = max(others, key=lambda n: rows[n]["eval"][key]["r@5"]["value"])
        for other in [best, *controls]:
            out[f"{retriever} r@5, docclean chunks - {other}"] = paired_difference(
                rows["docclean chunks"]["eval"][key]["ranks"], rows[other]["eval"][key]["ranks"], 5)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"the first {QUICK_FILINGS} filings only")
    ap.add_argument("--systems", default=",".join(PEERS), help="peers to compare, comma-separated")
    ap.add_argument("--chunk-tokens", default="", help="also docclean's chunker at these budgets (words), comma-separated")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not (args.corpus / "questions.jsonl").exists():
        log(f"skipped: no corpus at {args.corpus}")
        return 0
    questions = load_questions(args.corpus)
    files = sorted((args.corpus / "pdfs").glob("*.pdf"))
    if args.quick:
        files = files[:QUICK_FILINGS]
    names = {f.stem for f in files}
    questions = [q for q in questions if q.doc in names]
    args.out.mkdir(parents=True, exist_ok=True)

    log(f"docclean run over {len(files)} filings")
    run = run_docclean(files, args.out)
    if run["failed_documents"]:
        log(f"docclean could not parse {len(run['failed_documents'])} filings: {run['failed_documents']}")
    budgets = [int(b) for b in args.chunk_tokens.split(",") if b]
    rows = {name: {"passages": p} for name, p in docclean_rows(args.out, budgets).items()}
    rows["docclean chunks"]["run"] = run
    not_run = {}
    texts: dict[str, dict[str, list[str]]] = {}  # system -> filing -> page texts
    for system in [s for s in args.systems.split(",") if s]:
        docs, facts = peer_pages(system, files, args.out)
        texts[system] = docs
        if "not_run" in facts or len(docs) < len(files):
            not_run[system] = facts.get("not_run") or f"{len(files) - len(docs)} filings failed: {facts['errors']}"
            continue
        passages = [c for doc, pages in sorted(docs.items()) for c in pages_to_chunks(doc, [page_blocks(t) for t in pages])]
        rows[f"{system} {facts['version']}".strip()] = {"passages": passages, "facts": facts}
        if system == CONTROL_SYSTEM:
            rows[f"{CONTROL_PREFIX}: {system} {facts['version']}, figures left out"] = {
                "passages": [without_figures(p) for p in passages], "facts": facts}

    # the raw text layer: the reference for the furniture left in chunks
    raw = texts["pypdfium2"] if "pypdfium2" in texts else peer_pages("pypdfium2", files, args.out)[0]
    patterns = {doc: furniture_patterns(pages) for doc, pages in raw.items()}
    embedder = Embedder()
    for name, row in rows.items():
        log(f"evaluating {name}")
        row["eval"] = evaluate(row["passages"], questions, embedder)
        row["stats"] = {**chunk_stats(row["passages"]),
                        "furniture_share": round(furniture_share(row.pop("passages"), patterns), 5)}
    result = {"date": time.strftime("%Y-%m-%d"), "filings": len(files), "pages": page_count(files),
              "questions": len(questions), "question_ids": [q.qid for q in questions], "rows": rows,
              "not_run": not_run}
    result["differences"] = differences(rows)
    (args.out / "retrieval.json").write_text(json.dumps(result, indent=1))
    report = markdown(result)
    (args.out / "retrieval.md").write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
