from docclean_assets.extract.model import Block
from docclean_assets.extract.normalize import clean_chars, dehyphenate, normalize_blocks, vocabulary


def test_ligatures_quotes_and_spaces():
    assert clean_chars("\ufb01nal \u201cef\ufb02uent\u201d isn\u2019t\u00a0here") == 'final "effluent" isn\'t here'


def test_line_break_hyphen_joined_unless_document_spells_compound():
    vocab = vocabulary(["the well-known result", "a distribution"])
    assert dehyphenate("distri\u00adbution", vocab) == "distribution"
    assert dehyphenate("well\u00adknown", vocab) == "well-known"
    # No evidence either way: a lower-case continuation is syllabification.
    assert dehyphenate("exam\u00adple", vocabulary([])) == "example"


def test_inline_hyphens_untouched():
    assert dehyphenate("state-of-the-art", vocabulary(["state-of-the-art"])) == "state-of-the-art"


def test_normalize_keeps_original_and_drops_empty():
    blocks = [Block("paragraph", "  e\ufb00ect  of  x ", seq=0), Block("paragraph", "\u200b  ", seq=1),
              Block("table", "| a  | b |\n|---|---|\n| 1 | 2 |", seq=2)]
    out = normalize_blocks(blocks)
    assert out[0].text == "effect of x" and out[0].orig_text == "  e\ufb00ect  of  x "
    assert out[1].drop_reason == "empty"
    assert out[2].text.count("\n") == 2 and out[2].orig_text is not None


def test_word_frequencies_decide_when_the_document_does_not():
    empty = vocabulary([])
    assert dehyphenate("calib\u00adration", empty) == "calibration"
    assert dehyphenate("well\u00adknown", empty) == "well-known"
    assert dehyphenate("state-of-the\u00adart", empty) == "state-of-the-art"
    assert dehyphenate("Vertei\u00adlung", empty) == "Verteilung"  # German, from the languages setting
    # The document's own spelling outranks the dictionary.
    assert dehyphenate("well\u00adknown", vocabulary(["wellknown wellknown"])) == "wellknown"


def test_dashes_and_odd_spaces():
    assert clean_chars("1990\u20132000 \u2212 x\u2014y\u2009z") == "1990-2000 - x - y z"


def test_control_codes_become_the_unreadable_glyph_mark_and_whitespace_stays():
    assert clean_chars("\x00 ANNUAL REPORT\x1f\x7f\x85") == "\ufffd ANNUAL REPORT\ufffd\ufffd\ufffd"
    assert clean_chars("a\nb\x0bc\x0cd") == "a\nb\x0bc\x0cd"  # line breaks stay whitespace, not marks
    out = normalize_blocks([Block("paragraph", "\x00 Large accelerated filer", seq=0)])
    assert out[0].text == "\ufffd Large accelerated filer" and out[0].orig_text == "\x00 Large accelerated filer"


def test_normalize_settings_validate():
    import pytest

    from docclean_assets.extract.settings import NormalizeSettings, Settings

    with pytest.raises(ValueError):
        NormalizeSettings(languages=())
    assert Settings.from_dict({"normalize": {"languages": ["en"]}}).normalize.languages == ("en",)


def test_a_pdf_text_layers_lost_ligatures_and_run_together_words_are_repaired():
    from docclean_assets.extract.normalize import relink_ligatures, split_glued_words
    from docclean_assets.extract.settings import NormalizeSettings

    s = NormalizeSettings()
    # an "ff"/"ffi" glyph mapped to one "f": a letter lost, a gap left
    assert relink_ligatures("could adversely af ect our suf icient af iliates", s) == \
        "could adversely affect our sufficient affiliates"
    # two real words stay two: "ice" is a word, "offfice" none; "ort" is commoner than "effort"
    assert relink_ligatures("of ice and the staff of ort", s) == "of ice and the staff of ort"
    # a word gap set by negative kerning: a common word run into a capitalised one
    assert split_glued_words("As ofDecember 31, refer toNote 13 for the year endedDecember 31", s) == \
        "As of December 31, refer to Note 13 for the year ended December 31"
    # names with one lower-case letter first, or capitals after, and known words stay whole
    assert split_glued_words("iPhone eBay macOS PepsiCo JPMorgan McDonald", s) == "iPhone eBay macOS PepsiCo JPMorgan McDonald"


def test_a_word_the_pdf_draws_apart_is_rejoined_and_two_real_words_are_not():
    from docclean_assets.extract.normalize import rejoin_split_words
    from docclean_assets.extract.settings import NormalizeSettings

    s = NormalizeSettings()
    # a gap drawn inside a word: the joined word is known and far commoner than the rarer part
    assert rejoin_split_words("Consolidated Statement of Incom e and Balance Shee t", s) == \
        "Consolidated Statement of Income and Balance Sheet"
    assert rejoin_split_words("Item 1. Busines s. OVERVI EW", s) == "Item 1. Business. OVERVIEW"
    # each word is tried with the one before it and the one after it
    assert rejoin_split_words("the Incom e", s) == "the Income"
    # two real words stay two, a capitalised second part is a new word, a figure is no letter
    kept = "this is a test, we can not say any one of them; Ann a; New York; Part A; \u00bd months"
    assert rejoin_split_words(kept, s) == kept
    # the part more frequent than the joined word: "liquidity" is rarer than "liquid"
    assert rejoin_split_words("our liquid ity", s) == "our liquid ity"
    tight = NormalizeSettings(split_word_margin_zipf=5.0)  # the margin decides
    assert rejoin_split_words("Statement of Incom e", tight) == "Statement of Incom e"


def test_text_layer_repairs_apply_to_pdf_blocks_only_and_never_to_code():
    blocks = [Block("paragraph", "refer toNote 3: it may af ect us", seq=0), Block("code", "x = toString(isValid)", seq=1)]
    pdf = normalize_blocks(blocks, fmt="pdf")
    assert pdf[0].text == "refer to Note 3: it may affect us" and pdf[0].orig_text == blocks[0].text
    assert pdf[1].text == "x = toString(isValid)"
    assert normalize_blocks(blocks, fmt="docx")[0].text == "refer toNote 3: it may af ect us"
