"""Stage 1b: set aside rotated lines (diagonal watermarks, vertical stamps) and large light-grey text.

A run of rotated chars is a rotated *line* only when the chars' origins also progress along the
rotated direction; chars that are individually rotated or skewed but sit on a horizontal baseline
(pseudo-italic, wobbly display type) stay in the normal stream and in their words. A run is first
split into the parallel lines it holds (two stamps drawn one after the other, a table's column
labels turned upright or slanted at 45 degrees).
"""
from __future__ import annotations

import math
import statistics
from typing import NamedTuple

from docclean_assets.extract.pdf.chars import Char
from docclean_assets.extract.pdf.model import Line
from docclean_assets.extract.pdf.settings import PdfSettings


class RotatedLine(NamedTuple):
    """Chars drawn along a non-horizontal baseline."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    angle: float  # baseline angle, degrees counter-clockwise
    diagonal: bool  # True: not near a multiple of 90 degrees (a watermark, or slanted labels)
    size: float
    foot_x: float  # the middle and bottom of the glyph at the line's lower end: where a turned
    foot_y: float  # column label stands (pdf/turned_heads.py)

    def as_line(self) -> Line:
        """The rotated line as one text line in its box (a block's or a table cell's line)."""
        return Line(self.text, self.x0, self.top, self.x1, self.bottom, self.size, len(self.text), 0, ())


class CharSplit(NamedTuple):
    """The page's chars divided by role."""

    normal: list[Char]
    rotated: list[RotatedLine]
    light: list[Char]  # large light-grey chars (watermark text behind the content)


def _off_horizontal(angle: float) -> float:
    """Degrees between `angle` and the nearest horizontal direction (0 or 180)."""
    a = abs(angle) % 180
    return min(a, 180 - a)


def _off_axis(angle: float) -> float:
    """Degrees between `angle` and the nearest multiple of 90."""
    a = abs(angle) % 90
    return min(a, 90 - a)


def _rotated_line(run: list[Char], angle: float, settings: PdfSettings) -> RotatedLine:
    ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    run = sorted(run, key=lambda c: c.ox * ux + c.oy * uy)
    parts: list[str] = []
    prev: Char | None = None
    space = False
    for c in run:
        if c.text.isspace():
            space = True
            continue
        if prev is not None:
            gap = (c.ox - prev.ox) * ux + (c.oy - prev.oy) * uy - prev.adv
            if space or gap > settings.word_gap_em * c.size:
                parts.append(" ")
        parts.append(c.text)
        prev, space = c, False
    glyphs = [c for c in run if not c.text.isspace()] or run
    run = glyphs
    foot = max((run[0], run[-1]), key=lambda c: c.bottom)
    return RotatedLine(
        "".join(parts),
        min(c.x0 for c in run),
        min(c.top for c in run),
        max(c.x1 for c in run),
        max(c.bottom for c in run),
        angle,
        _off_axis(angle) > settings.rotated_min_angle_deg,
        statistics.median(c.size for c in run),
        (foot.x0 + foot.x1) / 2,
        foot.bottom,
    )


def _run_lines(run: list[Char], settings: PdfSettings) -> list[list[Char]]:
    """A run of rotated chars split into its lines, each in content order: a new line where the
    origins' offset across the chars' own direction jumps by more than `line_overlap_ratio` x font
    size (a stamp of two lines, column headers turned upright or slanted: drawn one after the other
    at one angle)."""
    median = statistics.median(c.angle for c in run)
    angle, ratio = math.radians(median), settings.line_overlap_ratio
    vx, vy = -math.sin(angle), math.cos(angle)
    across = sorted(run, key=lambda c: c.ox * vx + c.oy * vy)
    lines: list[list[Char]] = [[across[0]]]
    for prev, c in zip(across, across[1:]):
        if (c.ox - prev.ox) * vx + (c.oy - prev.oy) * vy > ratio * max(c.size, prev.size):
            lines.append([])
        lines[-1].append(c)
    return [sorted(line, key=lambda c: c.seq) for line in lines]


def split_chars(chars: list[Char], body_size: float, settings: PdfSettings) -> CharSplit:
    """Divide chars into the normal stream, rotated lines, and large light-grey watermark chars."""
    normal: list[Char] = []
    rotated: list[RotatedLine] = []
    light: list[Char] = []
    run: list[Char] = []

    def close_run() -> None:
        if not run:
            return
        back: list[Char] = []
        for line in _run_lines(run, settings):
            first, last = line[0], line[-1]
            dx, dy = last.ox - first.ox, last.oy - first.oy
            baseline = math.degrees(math.atan2(dy, dx)) if (dx or dy) else 0.0
            along = math.hypot(dx, dy) > settings.rotated_min_run_em * first.size
            if (
                len(line) >= settings.rotated_min_chars
                and along
                and _off_horizontal(baseline) > settings.rotated_min_angle_deg
            ):
                rotated.append(_rotated_line(line, baseline, settings))
            else:
                back.extend(line)
        normal.extend(sorted(back, key=lambda c: c.seq))
        run.clear()

    min_light_size = settings.watermark_min_size_ratio * body_size
    min_angle, max_step = settings.rotated_min_angle_deg, settings.rotated_run_max_step_deg
    lightest, darkest = settings.watermark_max_lightness, settings.watermark_min_lightness
    for c in chars:
        if c.angle and _off_horizontal(c.angle) > min_angle:  # (an angle of 0 is horizontal: no call)
            if run and abs(c.angle - run[-1].angle) > max_step:
                close_run()
            run.append(c)
            continue
        if run:
            close_run()
        if c.size >= min_light_size and darkest <= c.lightness <= lightest:
            light.append(c)
        else:
            normal.append(c)
    close_run()
    return CharSplit(normal, rotated, light)
