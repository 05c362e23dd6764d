"""HTML pages built in code: a news article in a site template (cookie banner, nav, breadcrumb,
footer) and a WordPress comment thread under it; the body of an extraction."""
from __future__ import annotations

PARAS = [
    "The river authority published its annual report on Tuesday, showing that water levels in the northern "
    "basin fell for the third consecutive year despite heavier winter rainfall than in previous seasons.",
    "Engineers attribute the decline to increased abstraction by farms upstream, which has doubled since the "
    "new irrigation scheme opened, and to the slow recovery of the aquifer beneath the old quarry district.",
    "Local councils have asked the authority to publish monthly figures so that residents can follow the "
    "trend, and the authority said it would consider the request at its next board meeting in the spring.",
    "Environmental groups welcomed the report but warned that the targets it sets for the coming decade are "
    "too modest to restore the wetlands that once supported large colonies of wading birds along the estuary.",
]


def body_of(ex):
    """The extraction's body blocks."""
    return [b for b in ex.blocks if b.in_body]


def body_text_of(ex):
    """The extraction's body text, a block a line."""
    return "\n".join(b.text for b in body_of(ex))


def article_page(extra_head: str = "", article_extra: str = "") -> str:
    """The article (PARAS) in the site's template; `extra_head` and `article_extra` go inside."""
    paras = "".join(f"<p>{p}</p>" for p in PARAS)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Water levels fall again | Daily</title>
    {extra_head}</head><body>
    <div id="cookie-banner" class="cookie-consent"><p>We use cookies to improve your experience on our site.
      By continuing you accept our cookie policy.</p><button>Accept all cookies</button></div>
    <header><nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>
      <li><a href="/sport">Sport</a></li><li><a href="/weather">Weather</a></li></ul></nav></header>
    <ol class="breadcrumb"><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li>Environment</li></ol>
    <main><article class="story"><h1>Water levels fall again</h1>{paras}{article_extra}
      <div class="feedback"><p>Was this page helpful?</p><button>Yes</button><button>No</button></div>
    </article></main>
    <footer><p>Copyright 2024 Daily News Ltd. All rights reserved.</p>
      <ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms of use</a></li></ul></footer>
    </body></html>"""


# (id, author, date, text, reply to)
THREAD = [
    ("7", "Ada Lovelace", "2024-03-01T09:15:00+00:00",
     "Thanks for this report: our allotment well has been dropping every summer since the scheme opened.", ""),
    ("8", "Bram Stoker", "2024-03-01T11:40:00+00:00",
     "Same here on the east bank, although the council blames the dry spring rather than the farms.", "7"),
    ("9", "Chen Wei", "2024-03-02T08:05:00+00:00",
     "Monthly figures would help a lot; the annual report arrives far too late to change anything.", ""),
]


def wp_comment(cid, author, date, text, children=""):
    """One comment of a WordPress thread as its theme marks it up (author, date, reply link)."""
    return (f'<li id="comment-{cid}" class="comment depth-1"><article id="div-comment-{cid}" class="comment-body">'
            f'<footer class="comment-meta"><div class="comment-author vcard"><b class="fn">{author}</b> '
            f'<span class="says">says:</span></div><div class="comment-metadata"><a href="#comment-{cid}">'
            f'<time datetime="{date}">1 March 2024 at 09:15</time></a></div></footer>'
            f'<div class="comment-content"><p>{text}</p></div>'
            f'<div class="reply"><a class="comment-reply-link" href="#respond">Reply</a></div></article>{children}</li>')


def wordpress_page() -> bytes:
    """The article with THREAD under it (one reply nested) and the reply form."""
    a, b, c = THREAD
    thread = (wp_comment(*a[:4], children=f'<ol class="children">{wp_comment(*b[:4])}</ol>') + wp_comment(*c[:4]))
    comments = (f'<div id="comments" class="comments-area"><h2 class="comments-title">3 thoughts on this</h2>'
                f'<ol class="comment-list">{thread}</ol><div id="respond" class="comment-respond">'
                f'<h3 class="comment-reply-title">Leave a Reply</h3><form><p><label>Comment</label>'
                f'<textarea name="comment"></textarea></p></form></div></div>')
    return article_page(article_extra=comments).encode()
