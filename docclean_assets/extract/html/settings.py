"""The HTML path's thresholds: named, unit-bearing, each with what it was calibrated on."""
from __future__ import annotations

from dataclasses import dataclass

from docclean_assets.extract.validation import Fraction, check_section


@dataclass(frozen=True, slots=True)
class HtmlSettings:
    """HTML extraction thresholds."""

    # A page with more elements than this is not given to trafilatura: its body is the page minus
    # its chrome (flag `extractor_skipped`). trafilatura is quadratic in the paragraphs (libxml2
    # evaluating `//p//text()`, also in its fast mode): an article of 30,000 paragraphs takes 4.5 s,
    # 50,000 14 s, 200,000 over 100 s; other shapes (div, li, td, a, br) less. The corpus pages have
    # at most 4,635 elements.
    extractor_max_elements: int = 30_000
    # A 2xx page whose visible text is shorter than this (characters) while it carries script
    # bundles is a client-rendered shell; a real article has hundreds of characters.
    shell_max_chars: int = 200
    # A JSON-LD articleBody shorter than this fraction of the visible page text is a teaser.
    jsonld_min_visible_ratio: Fraction = 0.25
    # How many leading words of a JSON-LD articleBody must occur (letters and digits only) in the
    # visible text; 8 words is unique within a page and survives quote/dash differences
    # (scrapinghub_aeb pages with articleBody).
    jsonld_prefix_words: int = 8
    # A DOM unit whose key (letters and digits) is shorter than this many characters counts as kept
    # only when it equals, or is most of, one segment of the extractor's output; longer units may
    # match anywhere in it. 25 characters is ~5 words: nav labels ("Home", "Share") stay below it.
    match_min_chars: int = 25
    # Fraction of a unit (or of an extractor segment) that must be matched for it to count as
    # matched; 0.5 tolerates the extractor trimming a child (button, byline) out of a paragraph.
    match_min_coverage: Fraction = 0.5
    # Steps (html_match.SCAN_CHARS_PER_STEP) the substring searches of the alignment, and of reader
    # comments in JSON-LD, may each spend on one page, about a microsecond each; past it only exact
    # matches count (flag `alignment_budget`). The corpus pages need at most 2,647 steps; 30,000
    # elements of kept paragraphs and dropped menu entries 1.4 million; 50,000 two-cell tables sharing
    # their cells would have needed billions.
    match_max_steps: int = 5_000_000
    # The main content container is the deepest element holding at least this fraction of the kept
    # paragraph characters; 0.8 leaves room for a stray kept line elsewhere (calibrated on the
    # mozilla_readability and scrapinghub_aeb pages).
    main_container_share: Fraction = 0.8
    # A <table> is reference data (kept even when the extractor dropped it) when inside the main
    # container with at least this many rows and columns and at most this fraction of link text;
    # link-dense grids are navigation.
    table_min_rows: int = 2
    table_min_cols: int = 2
    table_max_link_ratio: Fraction = 0.5
    # A table cell holding block elements and more than this many characters makes the table a
    # layout table (segmented as ordinary content, not as one Markdown block); data cells are short.
    layout_cell_chars: int = 300
    # A cell's colspan repeats it as at most this many cells (a hostile colspan="100000" would
    # widen every row of the Markdown table); corpus tables span at most a handful of columns
    # (historical default).
    table_max_colspan: int = 50
    # A decoded page with more than this fraction of U+FFFD / NUL characters was never text, and is
    # refused (historical default; real pages in a wrong charset stay far below it).
    undecodable_max_fraction: Fraction = 0.3
    # JSON-LD objects are looked for at most this many levels deep in a script (articleBody and
    # Comment nodes sit 1-4 levels down in the corpus pages; deeper nesting is refused JSON or noise;
    # historical default).
    jsonld_max_depth: int = 12
    # Text under nav/footer/aside, chrome roles, chrome class words (cookie, breadcrumb, share...) or
    # hidden elements is removed from the body even when the extractor kept it, unless such regions
    # hold at least this fraction of the kept characters (a wrapper marked "menu"/"sidebar" holding
    # the whole page). scrapinghub_aeb token F1: 0.958 at 0.0 (no veto), 0.959 at 0.3, 0.962 at 0.7.
    template_max_share: Fraction = 0.7

    # ---- reader comments (issue 7, html_comments.py)
    # A unit counts as a JSON-LD Comment's text only when its key (letters and digits) has at least
    # this many characters: shorter ones ("Reply", a name) recur in any thread. Same scale as
    # match_min_chars.
    comment_jsonld_min_chars: int = 25
    # A page that declares a thread (DiscussionForumPosting, QAPage) but whose markup names no comment
    # has posts told by their structure: at least post_min_repeats elements of one tag and first class
    # under one parent, each holding a <time> at most post_max_levels levels below it and an author.
    # Three is a question and two replies; XenForo's and phpBB's posts sit 5-8 levels above their
    # <time> (the WCXB dev sample's forums, and those projects' default templates).
    post_min_repeats: int = 3
    post_max_levels: int = 10
    # A page that declares a product keeps its customer reviews apart from its body, as an article
    # keeps its reader comments: elements whose class or id names a review (its last word "review")
    # or schema.org Review microdata, at least review_min_repeats of one tag under one parent. Two:
    # a product page shows its reviews as a list; one such element alone is a link or a widget.
    review_min_repeats: int = 2
    # A page that declares neither an article nor a thread is a thread (its comments are its posts,
    # kept as body) when it has at least two reader comments holding this many words per word of the
    # article the extractor found (in a thread, its first post). Articles with comments in
    # scrapinghub_aeb and the WCXB dev sample hold 0.02-0.63, but for three short posts under long
    # threads (2.8-14.7, kept articles by their declaration); the undeclared threads there, 5.1 and 13.9.
    thread_min_comment_ratio: float = 2.0

    # ---- standfirst (issue 7, html_lede.py)
    # A dropped paragraph between the title and the first body paragraph is the article's lede when
    # it has at least this many words (bylines, dates and photo credits have fewer), at most this
    # fraction of link text, the two are at most this many units apart, and its first characters
    # (key: letters and digits) are the page's meta description's, or the reverse. Measured: the
    # description match keeps photo captions out (scrapinghub_aeb token F1 0.9591 without, 0.9596
    # with) and finds 3 more trafilatura_eval 'with' snippets.
    lede_min_words: int = 12
    lede_max_link_ratio: Fraction = 0.3
    lede_max_gap_units: int = 8
    lede_description_key_chars: int = 60

    # A closed tab or accordion panel inside the article container is rescued as body only when
    # the content before it is body, looking past other panels, chrome and units of at most this
    # many words (its toggle: "Read the Letter", "Hide the sources of this article"). An appeal or a
    # team list in a collapse after text the extractor dropped stays out (scrapinghub_aeb).
    disclosure_control_max_words: int = 6

    # ---- the page's body past what an article extractor takes (issue 35, html/articles.py)
    # On a page that declares neither an article nor a product, when the extractor kept less than
    # this share of the readable words (not chrome, hidden, in-page furniture or dropped by a rule)
    # inside its own container (the deepest element holding all of its paragraphs), the rest of that
    # container is body too (meta.rescued = page_body): service, documentation and listing pages are
    # runs of sections, of which an extractor built for articles takes one. Half: the extractor's
    # choice stands while it holds most of its container. On the WCXB sample 21 pages change, 15 up
    # (service, collection, listing, documentation); scrapinghub_aeb, mozilla_readability and
    # trafilatura_eval pages do not change.
    page_body_max_extracted_share: Fraction = 0.5

    # ---- continuation chunks (issue 21, html/articles.py)
    # A site may split one article into several same-shaped containers (Wired's body chunks between
    # ad slots) and the extractor keep only the first. An element with the article container's tag,
    # class tokens and depth, under a common ancestor at most continuation_max_levels above it, is
    # more of the article when it holds at least continuation_min_words words of prose: paragraphs
    # of at least continuation_prose_min_words words ending a sentence, at most
    # continuation_max_link_ratio link text (the standfirst's measures). Calibrated on the two
    # scrapinghub_aeb pages whose recall it restores (0.35 and 0.45 before); no other corpus page has
    # such a chunk the extractor left out.
    continuation_max_levels: int = 3
    continuation_min_words: int = 50
    continuation_prose_min_words: int = 12
    continuation_max_link_ratio: Fraction = 0.3

    # <article> elements nested in an <article> are related content (HTML standard: "related to the
    # contents of the outer article"): related posts, video cards. Their text leaves the body (reason
    # teaser) when there are at least nested_article_min_count of them and the body has at least
    # nested_article_min_own_words words outside them; a page wrapping its one story in a second
    # <article> keeps it. An outer article holding only a label of at most toc_label_max_words words
    # besides them ("You may like...") is the related box; the label goes. Calibrated on the corpus's
    # 15 HTML pages with nested articles: a quote site's "You may like" posts leave (scrapinghub_aeb
    # precision 0.20 -> 1.0 on that page); the others (Engadget, NYT, Fox cards, comment threads) and
    # mozilla_readability and trafilatura_eval do not change.
    nested_article_min_count: int = 2
    nested_article_min_own_words: int = 30

    # ---- in-page furniture (issue 21, html/inpage.py)
    # An in-page table of contents is a run of at least toc_min_links consecutive units each made
    # for at least toc_min_link_share of its characters of links to the ids of this page's own
    # headings ("#install" -> <h2 id="install">); the short unit just before it (at most
    # toc_label_max_words words: "On this page", "In this article", "Contents") is its label.
    # Documentation TOCs list 3-30 headings; two links to headings are already a TOC and never prose.
    toc_min_links: int = 2
    toc_min_link_share: Fraction = 0.8
    toc_label_max_words: int = 4
    # A code block's toolbar: units next to a <pre> whose only other content in the wrapper they
    # share with it (at most code_wrapper_max_levels elements above the <pre>) is the code, each at
    # most code_toolbar_max_words words ("Copy", "Copied to clipboard", "Python", "Run in console"),
    # and at most code_toolbar_max_units of them on each side of it (a language label, a copy button
    # and its "Copied!" note are three).
    code_toolbar_max_words: int = 4
    code_toolbar_max_units: int = 4
    # A list of teasers for other pages (related stories, "Top stories", "You may also like"): at
    # least teaser_min_cards cards in a row, each a headline that is at least teaser_head_link_share
    # link text and at most teaser_head_max_words words, set in the same element at the same depth,
    # followed by at most teaser_dek_max_units unlinked summary units of at most teaser_dek_max_words
    # words. An article's own headings are not links; three cards is the smallest related-stories
    # block in scrapinghub_aeb (CBS and MLS "Our Latest Stories" hold four or five).
    teaser_min_cards: int = 3
    teaser_head_link_share: Fraction = 0.8
    teaser_head_max_words: int = 20
    teaser_dek_max_units: int = 2
    teaser_dek_max_words: int = 40
    # Cards without summaries count only when every headline is at least this share link text: a
    # "Related" list of bare links, not a reference list ('^ "Title". Publisher. Retrieved ...', which
    # is about 0.85 link text in mozilla_readability's Wikipedia pages).
    teaser_bare_link_share: Fraction = 0.95
    # A page whose teaser cards hold at least this share of its body's words (and that declares no
    # article) is a list of other pages: its cards are its entries (body, meta.role = entry), not
    # teasers. On the WCXB dev sample, articles' related-story cards held at most 0.36 of the body's
    # words; the listing and collection pages' cards 0.53-0.97 (half: the cards are most of the page).
    listing_min_entry_share: Fraction = 0.5
    # aria-hidden hides nothing on screen: a block it marks that is one of at least this many sibling
    # elements of its tag and class is a carousel's cell (the script hides the cells not in view from
    # screen readers and shows them in turn), not hidden. Three, as teaser_min_cards: a lone
    # aria-hidden block is a closed modal or menu. On the WCXB sample a home listing's 204 cells.
    carousel_min_cells: int = 3
    # An element hidden by an inline style inside one of at least this many sibling items of one tag
    # and class is an accordion's collapsed panel (a question and its answer per item; the script
    # sets the style on click), not hidden. Three, as carousel_min_cells: a lone hidden element or
    # hidden elements side by side under one parent (closed modals) stay hidden. On the WCXB sample
    # a service page's FAQ of 12 collapsed answers.
    accordion_min_items: int = 3
    code_wrapper_max_levels: int = 3

    def __post_init__(self) -> None:
        check_section(self)
        if self.jsonld_prefix_words < 1 or self.table_min_rows < 1 or self.table_min_cols < 1:
            raise ValueError("jsonld_prefix_words, table_min_rows and table_min_cols must be >= 1")
