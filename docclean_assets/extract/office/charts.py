"""Charts of DOCX and PPTX (DrawingML chart parts, c:chartSpace) as data: a caption and a Markdown table.

The table's header row is "Category" and the series names; each row is a category label followed
by the series' values at that point (cached values the file stores beside its formulas). Scatter
and bubble charts have no categories: one row per point, "Series | X | Y" (and "Size"). The caption
is the chart's title, or its type when it has none. Values are written with up to 15 significant
digits, so 4.2999999999999998 reads 4.3.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from lxml import etree

from docclean_assets.extract.model import DocReport, count_chars
from docclean_assets.extract.office.common import A_NS, C_NS, markdown_table, tidy, xml_float, xml_int

CHART_URI = C_NS  # graphicData/@uri of a chart frame, and the namespace of its c:chart reference
_XY_TYPES = frozenset({"scatterChart", "bubbleChart"})
_MAX_INDEX = 2**32 - 1  # c:pt/@idx is an xsd:unsignedInt


def c(name: str) -> str:
    return f"{{{C_NS}}}{name}"


class ChartData(NamedTuple):
    """What a chart says in words: its caption and its data as a Markdown table ('' when empty)."""

    caption: str
    table: str

    @property
    def chars(self) -> int:
        return count_chars(self.caption) + count_chars(self.table)


def _number(text: str) -> str:
    """A cached value as written, a finite number with up to 15 significant digits."""
    value = xml_float(text, -math.inf, math.inf, math.nan)  # text that is not a number is not a flaw here
    return f"{value:.15g}" if math.isfinite(value) else text.strip()


def _points(ref: etree._Element | None, report: DocReport | None) -> dict[int, str]:
    """idx -> value of the points cached under a c:tx / c:cat / c:val / c:xVal... element (a point
    whose idx is not an unsignedInt is left out, flagged value_clamped)."""
    if ref is None:
        return {}
    lvl = ref.find(f".//{c('multiLvlStrCache')}/{c('lvl')}")  # multi-level categories: the leaf level
    scope = lvl if lvl is not None else ref
    out: dict[int, str] = {}
    for pt in scope.iter(c("pt")):
        v = pt.find(c("v"))
        idx = xml_int(pt.get("idx"), 0, _MAX_INDEX, None, report, clamp=False)
        if idx is not None and v is not None and v.text is not None:
            out[idx] = v.text
    return out


def _rich_text(el: etree._Element | None) -> str:
    """Text of a c:title / c:tx: rich paragraphs, else a cached string reference."""
    if el is None:
        return ""
    paras = [" ".join("".join(t.text or "" for t in p.iter(f"{{{A_NS}}}t")).split()) for p in el.iter(f"{{{A_NS}}}p")]
    text = " ".join(t for t in paras if t)
    if not text:
        text = " ".join(v.text or "" for v in el.iter(c("v")))
    return tidy(text)


def _series_name(ser: etree._Element, n: int) -> str:
    name = _rich_text(ser.find(c("tx")))
    return name or f"Series {n}"


def _caption(root: etree._Element, plot_types: list[str]) -> str:
    title = _rich_text(root.find(f"{c('chart')}/{c('title')}"))
    if title:
        return title
    kind = plot_types[0].removesuffix("Chart").removesuffix("3D") if plot_types else ""
    return f"{kind.capitalize()} chart" if kind else "Chart"


def _xy_rows(series: list[tuple[str, etree._Element]], report: DocReport | None) -> list[list[str]]:
    bubble = any(ser.find(c("bubbleSize")) is not None for _, ser in series)
    rows = [["Series", "X", "Y", *(["Size"] if bubble else [])]]
    for name, ser in series:
        xs, ys = _points(ser.find(c("xVal")), report), _points(ser.find(c("yVal")), report)
        sizes = _points(ser.find(c("bubbleSize")), report)
        for idx in sorted(set(xs) | set(ys)):
            row = [name, _number(xs.get(idx, str(idx + 1))), _number(ys.get(idx, ""))]
            rows.append(row + ([_number(sizes.get(idx, ""))] if bubble else []))
    return rows


def _category_rows(series: list[tuple[str, etree._Element]], report: DocReport | None) -> list[list[str]]:
    values = [_points(ser.find(c("val")), report) for _, ser in series]
    cats: dict[int, str] = {}
    for _, ser in series:
        cats = _points(ser.find(c("cat")), report)
        if cats:
            break
    indices = sorted(set(cats).union(*values)) if values else sorted(cats)
    rows = [["Category", *(name for name, _ in series)]]
    for idx in indices:
        label = _number(cats[idx]) if idx in cats else str(idx + 1)
        rows.append([label, *(_number(v[idx]) if idx in v else "" for v in values)])
    return rows


def chart_to_data(root: etree._Element, report: DocReport | None = None) -> ChartData:
    """Caption and Markdown table of one chart part (c:chartSpace); `report` is flagged
    value_clamped when a point's index is out of range."""
    plot = root.find(f"{c('chart')}/{c('plotArea')}")
    groups = [g for g in plot if isinstance(g.tag, str) and g.tag.endswith("Chart")] if plot is not None else []
    plot_types = [etree.QName(g).localname for g in groups]
    series: list[tuple[str, etree._Element]] = []
    for g in groups:
        for ser in g.findall(c("ser")):
            series.append((_series_name(ser, len(series) + 1), ser))
    caption = _caption(root, plot_types)
    if not series:
        return ChartData(caption, "")
    xy = bool(plot_types) and all(t in _XY_TYPES for t in plot_types)
    rows = _xy_rows(series, report) if xy else _category_rows(series, report)
    return ChartData(caption, markdown_table(rows) if len(rows) > 1 else "")
