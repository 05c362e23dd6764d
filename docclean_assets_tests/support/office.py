"""Office content built in code: OMML equations (one with a revision inside it) and chart data."""
from __future__ import annotations

from pptx.chart.data import CategoryChartData


M = 'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"'


def r(text: str) -> str:
    """An OMML run of text."""
    return f"<m:r><m:t>{text}</m:t></m:r>"


def sup(base: str, script: str) -> str:
    """OMML `base` with a superscript."""
    return f"<m:sSup><m:e>{base}</m:e><m:sup>{script}</m:sup></m:sSup>"


def sub(base: str, script: str) -> str:
    """OMML `base` with a subscript."""
    return f"<m:sSub><m:e>{base}</m:e><m:sub>{script}</m:sub></m:sSub>"


# x = (−b ± √(b² − 4ac)) / 2a, with a deleted "+ 0" revision inside the radical
QUADRATIC = (
    r("x=")
    + "<m:f><m:num>" + r("−b±")
    + "<m:rad><m:radPr><m:degHide m:val=\"1\"/></m:radPr><m:deg/><m:e>"
    + sup(r("b"), r("2")) + r("−4ac")
    + '<w:del w:id="7" w:author="r"><m:r><m:t>+0</m:t></m:r></w:del>'
    + "</m:e></m:rad></m:num><m:den>" + r("2a") + "</m:den></m:f>"
)


def category_data() -> CategoryChartData:
    """Two series over three quarters, for a column chart."""
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("Revenue", (1.5, 2.25, 3))
    data.add_series("Cost", (1, 1.75, 2.5))
    return data
