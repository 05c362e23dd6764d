from docclean_assets.extract.bidi import is_rtl, visual_to_logical


def test_rtl_line_read_from_the_right_with_latin_and_numbers_turned_back():
    logical = "\u0627\u0644\u0628\u0631\u0645\u062c\u0629 \u0628\u0644\u063a\u0629 Python 3.11 \u0645\u0641\u064a\u062f\u0629"
    # What a PDF yields left to right: the whole line mirrored, Latin runs left as they are drawn.
    visual = "\u0629\u062f\u064a\u0641\u0645 Python 3.11 \u0629\u063a\u0644\u0628 \u0629\u062c\u0645\u0631\u0628\u0644\u0627"
    assert visual_to_logical(visual) == logical


def test_left_to_right_lines_untouched():
    assert visual_to_logical("The 2024 report (see p. 3)") == "The 2024 report (see p. 3)"
    assert not is_rtl("Python \u0648")
    assert is_rtl("\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd x")
