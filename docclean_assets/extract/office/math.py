"""Office Math (OMML: m:oMath, m:oMathPara) as linear text, for DOCX paragraphs and PPTX a14:m.

Fractions read (a)/(b), scripts x^2 and x_i (a script longer than one character in parentheses),
radicals sqrt(x) or sqrt[n](x), n-ary operators with their limits (∑_(i=1)^(n) x_i), delimiters
with their characters ((a|b)), functions sin(x), matrices [a, b; c, d]. Deleted revisions inside an
equation are left out (the "accept all changes" view).
"""
from __future__ import annotations

from lxml import etree

from docclean_assets.extract.office.common import M_NS, W_NS


def m(name: str) -> str:
    return f"{{{M_NS}}}{name}"


M_OMATH, M_OMATHPARA = m("oMath"), m("oMathPara")
MATH_ROOTS = frozenset({M_OMATH, M_OMATHPARA})
_DELETED = frozenset({f"{{{W_NS}}}del", f"{{{W_NS}}}moveFrom", f"{{{W_NS}}}delText"})
_TEXT = frozenset({m("t"), f"{{{W_NS}}}t"})
_DEFAULT_NARY = "\u222b"  # ∫: OMML's default n-ary character


def _prop(el: etree._Element, pr: str, name: str, default: str | None) -> str | None:
    """An m:val property of an element's property block (m:naryPr/m:chr...); '' when empty."""
    node = el.find(f"{m(pr)}/{m(name)}")
    if node is None:
        return default
    return node.get(m("val"), "")


def _wrap(text: str) -> str:
    """A script or operand: bare when one character, else in parentheses."""
    return text if len(text) <= 1 else f"({text})"


def _enclosed(text: str) -> bool:
    """Whether one pair of parentheses encloses the whole text ("(a+b)", not "(a)/(b)")."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(text) - 1:
            return False
    return True


class _Linear:
    """Renders one equation tree; dispatch by element name."""

    def text(self, el: etree._Element | None) -> str:
        """Linear text of an element's children, in order."""
        if el is None:
            return ""
        return "".join(self.node(child) for child in el)

    def arg(self, el: etree._Element, name: str) -> str:
        return self.text(el.find(m(name)))

    def node(self, el: etree._Element) -> str:
        tag = el.tag
        if not isinstance(tag, str) or tag in _DELETED or tag.endswith("Pr"):
            return ""
        if tag in _TEXT:
            return el.text or ""
        if not tag.startswith(f"{{{M_NS}}}"):
            return self.text(el)  # w:ins, w:r, mc wrappers...: their content
        render = getattr(self, "_" + etree.QName(el).localname, None)
        return render(el) if render is not None else self.text(el)

    def _oMathPara(self, el: etree._Element) -> str:
        return "\n".join(t for t in (self.node(c) for c in el.findall(M_OMATH)) if t)

    def _f(self, el: etree._Element) -> str:
        return f"({self.arg(el, 'num')})/({self.arg(el, 'den')})"

    def _sSup(self, el: etree._Element) -> str:
        return f"{self.arg(el, 'e')}^{_wrap(self.arg(el, 'sup'))}"

    def _sSub(self, el: etree._Element) -> str:
        return f"{self.arg(el, 'e')}_{_wrap(self.arg(el, 'sub'))}"

    def _sSubSup(self, el: etree._Element) -> str:
        return f"{self.arg(el, 'e')}_{_wrap(self.arg(el, 'sub'))}^{_wrap(self.arg(el, 'sup'))}"

    def _sPre(self, el: etree._Element) -> str:
        return f"_{_wrap(self.arg(el, 'sub'))}^{_wrap(self.arg(el, 'sup'))}{self.arg(el, 'e')}"

    def _rad(self, el: etree._Element) -> str:
        deg = self.arg(el, "deg")
        return f"sqrt[{deg}]({self.arg(el, 'e')})" if deg else f"sqrt({self.arg(el, 'e')})"

    def _nary(self, el: etree._Element) -> str:
        op = _prop(el, "naryPr", "chr", _DEFAULT_NARY) or _DEFAULT_NARY
        sub, sup = self.arg(el, "sub"), self.arg(el, "sup")
        limits = (f"_{_wrap(sub)}" if sub else "") + (f"^{_wrap(sup)}" if sup else "")
        return f"{op}{limits} {self.arg(el, 'e')}"

    def _d(self, el: etree._Element) -> str:
        beg = _prop(el, "dPr", "begChr", "(")
        sep = _prop(el, "dPr", "sepChr", "|")
        end = _prop(el, "dPr", "endChr", ")")
        return f"{beg}{sep.join(self.text(e) for e in el.findall(m('e')))}{end}"

    def _func(self, el: etree._Element) -> str:
        arg = self.arg(el, "e")
        if _enclosed(arg):
            return f"{self.arg(el, 'fName')}{arg}"
        return f"{self.arg(el, 'fName')}({arg})"

    def _limLow(self, el: etree._Element) -> str:
        return f"{self.arg(el, 'e')}_{_wrap(self.arg(el, 'lim'))}"

    def _limUpp(self, el: etree._Element) -> str:
        return f"{self.arg(el, 'e')}^{_wrap(self.arg(el, 'lim'))}"

    def _acc(self, el: etree._Element) -> str:
        return self.arg(el, "e") + (_prop(el, "accPr", "chr", "\u0302") or "")

    def _eqArr(self, el: etree._Element) -> str:
        return "\n".join(self.text(e) for e in el.findall(m("e")))

    def _m(self, el: etree._Element) -> str:
        rows = [", ".join(self.text(e) for e in mr.findall(m("e"))) for mr in el.findall(m("mr"))]
        return f"[{'; '.join(rows)}]"


def omml_to_text(el: etree._Element) -> str:
    """Linear text of an m:oMath or m:oMathPara element."""
    return _Linear().node(el).strip()
