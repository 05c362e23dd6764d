import pytest

from docclean_assets.extract.model import Block, DocReport
from docclean_assets.extract.quality import band_for, document_figures, learn_band
from docclean_assets.extract.settings import QualitySettings

Q = QualitySettings()


def test_figures_count_body_only():
    blocks = [Block("paragraph", "abcd"), Block("comment", "zz"), Block("paragraph", "nav", drop_reason="boilerplate")]
    f = document_figures(blocks, DocReport(raw_chars=20))
    assert f["kept_chars"] == 4 and f["retention_ratio"] == pytest.approx(0.2)
    assert f["boilerplate_removed"] == 1 and f["drop_counts"] == {"boilerplate": 1}


def test_in_page_furniture_counts_as_boilerplate_removed_but_a_deleted_revision_does_not():
    reasons = ["toc", "hidden", "code_toolbar", "teaser", "deleted_revision"]
    blocks = [Block("paragraph", "body text")] + [Block("paragraph", r, drop_reason=r) for r in reasons]
    f = document_figures(blocks, DocReport(raw_chars=40))
    assert f["boilerplate_removed"] == 4 and f["drop_counts"] == dict.fromkeys(reasons, 1)


def test_band_learned_robustly_flags_outlier_only():
    ratios = [0.40, 0.42, 0.41, 0.39, 0.43, 0.40, 0.05]
    band = learn_band(ratios, Q)
    assert band is not None and band.learned
    assert 0.05 < band.low < 0.39


def test_band_needs_enough_documents_and_config_wins():
    assert learn_band([0.4, 0.5], Q) is None
    band = band_for((0.28, 0.44), [0.4] * 10, Q)
    assert (band.low, band.high, band.learned) == (0.28, 0.44, False)


def test_identical_ratios_get_minimum_width():
    band = learn_band([0.5] * 6, Q)
    assert band.low == pytest.approx(0.45)
