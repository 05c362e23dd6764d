import typing
from dataclasses import fields

import pytest

from docclean_assets.extract.settings import Settings, section_from_dict
from docclean_assets.ingest.sources import FetchSettings


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


# ---- every value is checked against its field's type and range, and the error names the key


@pytest.mark.parametrize(("section", "key", "value", "says"), [
    ("pdf", "word_gap_em", "0.2", "expected a number, got str '0.2'"),  # str for a float
    ("pdf", "heading_max_chars", 120.0, "expected an integer, got float 120.0"),  # float for an int
    ("limits", "workers", True, "expected an integer, got bool True"),  # bool for an int
    ("quality", "mad_k", False, "expected a number, got bool False"),  # bool for a float
    ("ocr", "language", 5, "expected str, got int 5"),
    ("normalize", "languages", ["en", 3], "item 1: expected str, got int 3"),  # list of the wrong element type
    ("normalize", "languages", "en", "expected a list, got str 'en'"),
    ("html", "shell_max_chars", -1, "must be >= 0, got -1"),
    ("office", "band_overlap_ratio", 1.2, "must be within [0, 1], got 1.2"),
    ("pdf", "table_min_density", 2, "must be within [0, 1], got 2"),
    ("fetch", "timeout_s", float("nan"), "must be >= 0, got nan"),
])
def test_wrong_type_or_range_names_the_key(section, key, value, says):
    with pytest.raises(ValueError) as err:
        _parse(section, {key: value})
    assert str(err.value) == f"settings.{section}.{key}: {says}"


def _parse(section, values):
    """A section as a sources.yaml's `settings.<section>` sets it: the library's through Settings, the
    pipeline's own (fetch) through the same section reader."""
    if section == "fetch":
        return section_from_dict("fetch", FetchSettings(), values)
    return getattr(Settings.from_dict({section: values}), section)


def test_right_types_are_accepted():
    s = Settings.from_dict({"pdf": {"word_gap_em": 1}, "normalize": {"languages": ["en", "de"]},
                            "boilerplate": {"band_fraction": 0, "min_pages": 4}})
    assert (s.pdf.word_gap_em, s.normalize.languages, s.boilerplate.band_fraction) == (1, ("en", "de"), 0)


def test_checks_across_fields_name_the_section():
    with pytest.raises(ValueError, match=r"^settings\.limits: .*pdf_max_page_codepoints"):
        Settings.from_dict({"limits": {"pdf_max_page_codepoints": 10, "pdf_max_page_chars": 20}})
    with pytest.raises(ValueError, match=r"^settings\.pdf: expected a mapping"):
        Settings.from_dict({"pdf": 3})


def _wrong_value(hint):
    """A value no field of type `hint` accepts."""
    if typing.get_origin(hint) is typing.Annotated:
        hint = hint.__origin__
    if hint in (int, float):
        return "1"
    if hint is str:
        return 1
    if hint is bool:
        return 1
    if typing.get_origin(hint) is tuple:
        return ("1", 1) if typing.get_args(hint)[0] is str else ("1",)
    raise AssertionError(f"no wrong value known for {hint!r}: teach this test the new kind of field")


SECTIONS = {**typing.get_type_hints(Settings), "fetch": FetchSettings}


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_field_of_every_section_is_validated(section):
    """A field added to any section cannot slip past the type check (nor, if a number, the range check)."""
    cls = SECTIONS[section]
    hints = typing.get_type_hints(cls, include_extras=True)
    for f in fields(cls):
        with pytest.raises(ValueError, match=rf"^settings\.{section}\.{f.name}: (item \d+: )?expected"):
            _parse(section, {f.name: _wrong_value(hints[f.name])})
        if isinstance(getattr(cls(), f.name), (int, float)) and not isinstance(getattr(cls(), f.name), bool):
            with pytest.raises(ValueError, match=rf"^settings\.{section}\.{f.name}: must be"):
                _parse(section, {f.name: -1})
    with pytest.raises(ValueError, match=rf"^{cls.__name__}\.{fields(cls)[0].name}: (item \d+: )?expected"):
        cls(**{fields(cls)[0].name: _wrong_value(hints[fields(cls)[0].name])})  # direct construction too


def test_the_aggregate_checks_its_sections():
    with pytest.raises(ValueError, match=r"^Settings\.pdf: expected a PdfSettings section"):
        Settings(pdf={"word_gap_em": 0.2})


def test_shares_and_fractions_are_declared_as_such():
    """A field named as a share of something (`_fraction`, `_share`, `_quantile`, a lightness or
    luminance) is annotated `Fraction`, so its [0, 1] range is checked like every other's."""
    import re

    from docclean_assets.extract.validation import Fraction

    named = re.compile(r"_(fraction|share|quantile|lightness|luminance)$")
    for section, cls in SECTIONS.items():
        hints = typing.get_type_hints(cls, include_extras=True)
        undeclared = [f.name for f in fields(cls) if named.search(f.name) and hints[f.name] != Fraction]
        assert not undeclared, f"{section}: {undeclared}"
    with pytest.raises(ValueError, match=r"^settings\.pdf\.bold_line_min_fraction: must be within \[0, 1\]"):
        Settings.from_dict({"pdf": {"bold_line_min_fraction": 1.5}})
