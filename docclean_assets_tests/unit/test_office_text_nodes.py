"""iter_text_nodes (lxml's walk plus an ancestor check) finds exactly what the element-by-element
walk finds: one mc branch, nothing inside a found element, document order."""
from __future__ import annotations

from lxml import etree

from docclean_assets.extract.office.common import iter_text_nodes, walk_text_nodes

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
TAGS = frozenset({f"{{{W}}}t", f"{{{W}}}delText"})


def _tree(body: str) -> etree._Element:
    return etree.fromstring(f'<w:document xmlns:w="{W}" xmlns:mc="{MC}"><w:body>{body}</w:body></w:document>')


def _texts(nodes) -> list[str]:  # noqa: ANN001 - elements
    return [el.text or "" for el in nodes]


def _both(root: etree._Element) -> list[str]:
    fast, slow = _texts(iter_text_nodes(root, TAGS)), _texts(walk_text_nodes(root, TAGS))
    assert fast == slow
    return fast


def test_plain_runs_in_order() -> None:
    root = _tree("<w:p><w:r><w:t>a</w:t></w:r><w:r><w:delText>b</w:delText></w:r></w:p><w:p><w:r><w:t>c</w:t></w:r></w:p>")
    assert _both(root) == ["a", "b", "c"]


def test_one_branch_of_alternate_content() -> None:
    choice_and_fallback = ("<mc:AlternateContent><mc:Choice><w:t>choice</w:t></mc:Choice>"
                           "<mc:Fallback><w:t>fallback</w:t></mc:Fallback></mc:AlternateContent>")
    fallback_only = "<mc:AlternateContent><mc:Fallback><w:t>only fallback</w:t></mc:Fallback></mc:AlternateContent>"
    nested = ("<mc:AlternateContent><mc:Choice><w:t>outer</w:t><mc:AlternateContent><mc:Choice><w:t>inner</w:t>"
              "</mc:Choice><mc:Fallback><w:t>inner fallback</w:t></mc:Fallback></mc:AlternateContent></mc:Choice>"
              "<mc:Fallback><w:t>outer fallback</w:t></mc:Fallback></mc:AlternateContent>")
    root = _tree(f"<w:p><w:r><w:t>x</w:t>{choice_and_fallback}{fallback_only}{nested}<w:t>y</w:t></w:r></w:p>")
    assert _both(root) == ["x", "choice", "only fallback", "outer", "inner", "y"]


def test_nothing_inside_a_found_element() -> None:
    root = _tree("<w:p><w:r><w:t>outer<w:t>nested</w:t></w:t><w:t>next</w:t></w:r></w:p>")
    assert _both(root) == ["outer", "next"]


def test_root_below_alternate_content_or_a_found_element() -> None:
    tree = _tree("<mc:AlternateContent><mc:Choice><w:p><w:t>a</w:t></w:p></mc:Choice>"
                 "<mc:Fallback><w:p><w:t>b</w:t></w:p></mc:Fallback></mc:AlternateContent>")
    fallback_para = tree.find(f".//{{{MC}}}Fallback/{{{W}}}p")
    assert _both(fallback_para) == ["b"]  # a part of the tree handed over on its own is read whole
    alternate = tree.find(f".//{{{MC}}}AlternateContent")
    assert _both(alternate) == ["a"]
    found = _tree("<w:t>top<w:t>inside</w:t></w:t>").find(f".//{{{W}}}t")
    assert _both(found.find(f"{{{W}}}t")) == ["inside"]
    assert _both(found) == ["top"]
