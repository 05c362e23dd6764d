"""The gate: docclean's quality figures pinned in bench/baseline.json with the corpus hash, and the
pipeline's speed ratios (bench/pipeline_speed.py) pinned beside them."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

BASELINE = Path(__file__).resolve().parent / "baseline.json"
NOISE_MARGIN = 0.01  # absolute: a figure may sit this far below its floor before the gate fails
# Relative: a speed ratio may sit this share below its floor before the gate fails. The ratios are
# measured against the library in the same run, so a slower machine moves both sides; what is left
# is the run-to-run spread on the 2-core machine: three back-to-back runs of the same code gave the
# whole-run ratio of web pages 0.67x, 0.56x and 0.43x (bench/README.md, "The pipeline around the
# library"). The overhead this guards against cost 20-50x.
SPEED_NOISE_MARGIN = 0.3
SKIP_KEYS = {"n", "f1_ci", "n_with", "n_without", "n_checks", "not_scored", "n_strings", "n_deleted",
             "n_inserted", "n_notes"}


def docclean_figures(quality: dict) -> dict[str, float]:
    """Flatten docclean's numeric quality figures to 'group:metric' -> value."""
    out = {}
    for group, per_sys in sorted(quality.items()):
        for key, val in sorted(per_sys.get("docclean", {}).items()):
            if key not in SKIP_KEYS and isinstance(val, (int, float)) and val is not None:
                out[f"{group}:{key}"] = round(float(val), 4)
    return out


def check(quality: dict, corpus_hash: str, lower_reason: str | None, raise_floors: bool,
          write: bool, path: Path = BASELINE) -> tuple[bool, list[str]]:
    """Compare against the pinned floors; returns (passed, messages). With write=True the baseline
    is created when missing, re-pinned with --lower-floors REASON, raised with --raise-floors."""
    figures, msgs = docclean_figures(quality), []
    base = json.loads(path.read_text()) if path.exists() else None
    today = dt.date.today().isoformat()
    if base is None or lower_reason:
        if write:
            history = (base or {}).get("history", [])
            history.append({"date": today, "action": "pinned" if base is None else "lowered",
                            "reason": lower_reason or "initial pin", "corpus_hash": corpus_hash})
            _save(path, corpus_hash, figures, history)
            msgs.append(f"gate: floors {'pinned' if base is None else 're-pinned'} at this run's figures"
                        f" ({len(figures)} figures){' - reason: ' + lower_reason if lower_reason else ''}")
        else:
            msgs.append("gate: no baseline to compare (bench-quick never writes one)")
        return True, msgs
    if base.get("corpus_hash") != corpus_hash:
        msgs.append(f"gate: corpus hash {corpus_hash[:12]} differs from the pinned "
                    f"{str(base.get('corpus_hash'))[:12]}; floors not compared "
                    "(re-pin with --lower-floors \"reason\")")
        return True, msgs
    floors, failed = base["floors"], []
    for key, floor in sorted(floors.items()):
        val = figures.get(key)
        if val is None:
            failed.append(f"{key}: missing (floor {floor:.4f})")
        elif val < floor - base.get("noise_margin", NOISE_MARGIN):
            failed.append(f"{key}: {val:.4f} < floor {floor:.4f} - margin {base.get('noise_margin', NOISE_MARGIN)}")
    msgs += [f"gate FAIL {m}" for m in failed]
    if not failed:
        msgs.append(f"gate: all {len(floors)} docclean figures at or above their floors "
                    f"(margin {base.get('noise_margin', NOISE_MARGIN)})")
    if raise_floors and write and not failed:
        new = {k: max(v, figures.get(k, v)) for k, v in floors.items()}
        new.update({k: v for k, v in figures.items() if k not in new})
        base["history"].append({"date": today, "action": "raised", "reason": "--raise-floors",
                                "corpus_hash": corpus_hash})
        _save(path, corpus_hash, new, base["history"])
        msgs.append("gate: floors raised to this run's figures where higher")
    return not failed, msgs


def _save(path: Path, corpus_hash: str, floors: dict, history: list) -> None:
    """Write the quality floors, keeping whatever else the file holds (the speed floors)."""
    base = json.loads(path.read_text()) if path.exists() else {}
    base.update(corpus_hash=corpus_hash, noise_margin=NOISE_MARGIN, floors=floors, history=history)
    path.write_text(json.dumps(base, indent=1, sort_keys=True) + "\n")


def check_speed(figures: dict[str, float], lower_reason: str | None, raise_floors: bool, write: bool,
                path: Path = BASELINE) -> tuple[bool, list[str]]:
    """The pipeline's speed ratios (higher is better) against `speed_floors`: pinned when there are
    none (or with --lower-floors REASON), raised with --raise-floors; (passed, messages)."""
    base = json.loads(path.read_text()) if path.exists() else {}
    floors, margin = base.get("speed_floors"), base.get("speed_noise_margin", SPEED_NOISE_MARGIN)
    if not figures:
        return True, ["speed gate: no pipeline figures in this run"]
    if floors is None or lower_reason:
        if not write:
            return True, ["speed gate: no speed floors to compare"]
        base.update(speed_floors=dict(sorted(figures.items())), speed_noise_margin=margin)
        base.setdefault("history", []).append({"date": dt.date.today().isoformat(),
                                               "action": "speed pinned" if floors is None else "speed lowered",
                                               "reason": lower_reason or "initial pin of the speed floors"})
        path.write_text(json.dumps(base, indent=1, sort_keys=True) + "\n")
        return True, [f"speed gate: floors {'pinned' if floors is None else 're-pinned'} at this run's ratios "
                      f"({len(figures)} figures)"]
    failed = [f"{k}: {figures[k]:.3f} < floor {v:.3f} less {margin:.0%}" if k in figures else f"{k}: missing"
              for k, v in sorted(floors.items()) if k not in figures or figures[k] < v * (1 - margin)]
    msgs = [f"speed gate FAIL {m}" for m in failed] or [
        f"speed gate: all {len(floors)} pipeline ratios at or above their floors (margin {margin:.0%})"]
    if raise_floors and write and not failed:
        base["speed_floors"] = {k: max(v, figures.get(k, v)) for k, v in floors.items()} | {
            k: v for k, v in figures.items() if k not in floors}
        path.write_text(json.dumps(base, indent=1, sort_keys=True) + "\n")
        msgs.append("speed gate: floors raised to this run's ratios where higher")
    return not failed, msgs
