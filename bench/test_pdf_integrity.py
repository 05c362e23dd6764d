"""bench.pdf_integrity on inline text: which sentences count, and whole / broken / missing."""
from bench.pdf_integrity import classify, gt_sentences, words

GT = """# A heading that is long enough to be a sentence if it were prose here

The first sentence of the paragraph runs on for more than eight words. Short one.
- A list item that also has more than eight words in it.
| a table row | with cells that are never counted as prose sentences |
"""


def test_only_prose_sentences_of_eight_words_or_more_count():
    assert gt_sentences(GT) == ["The first sentence of the paragraph runs on for more than eight words.",
                                "A list item that also has more than eight words in it."]


def test_a_sentence_is_whole_in_one_block_broken_across_two_and_missing_otherwise():
    sentence = "The first sentence of the paragraph runs on for more than eight words."
    one = [words("Intro. The first sentence of the para-\ngraph runs on for more than eight words.")]
    two = [words("The first sentence of the paragraph runs"), words("on for more than eight words.")]
    assert classify(sentence, one, " ".join(one)) == "whole"
    assert classify(sentence, two, " ".join(two)) == "broken"
    assert classify(sentence, [words("something else entirely")], "something else entirely") == "missing"
