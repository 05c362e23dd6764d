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


def test_normalize_settings_validate():
    import pytest

    from docclean_assets.extract.settings import NormalizeSettings, Settings

    with pytest.raises(ValueError):
        NormalizeSettings(languages=())
    assert Settings.from_dict({"normalize": {"languages": ["en"]}}).normalize.languages == ("en",)
