import pytest

from docclean_assets.extract.settings import Settings


def test_overrides_and_validation():
    s = Settings.from_dict({"limits": {"timeout_s": 5}})
    assert s.limits.timeout_s == 5 and Settings().limits.timeout_s != 5
    with pytest.raises(ValueError, match="unknown settings key"):
        Settings.from_dict({"limits": {"timeout": 5}})
    with pytest.raises(ValueError, match="must be >= 0"):
        Settings.from_dict({"pdf": {"word_gap_em": -1}})
    with pytest.raises(ValueError, match="within"):
        Settings.from_dict({"boilerplate": {"band_fraction": 1.5}})
    assert Settings().to_dict()["limits"]["memory_mb"] == Settings().limits.memory_mb
