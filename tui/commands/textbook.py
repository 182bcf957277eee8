"""``objectives-tutor textbook RUN``: the lessons' runs, printed as the lessons
print them (or as JSON)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from exercises.text import L
from tui.commands.arguments import refuse_inapplicable, refuse_out_of_range, whole

if TYPE_CHECKING:
    from rich.console import Console

PROG = "objectives-tutor textbook"
RUNS = ("clm", "mlm", "visibility", "three-samples")
# Each run's sizes: the lesson's (the defaults) and the largest a learner may ask for,
# chosen so that the largest run stays a tutor's (benchmarks/cli_bounds.py measures them:
# clm 8 × 128 builds two 8 × 127 × 10,000 logit tensors, about 170 MB; mlm 4096 × 128 and
# visibility 512, as JSON, about 10 MB each). tui/cli.py states them in --help.
SIZES = {
    "clm": {"batch": (2, whole(1, 8)), "seq_len": (8, whole(2, 128))},
    "mlm": {"batch": (4, whole(1, 4096)), "seq_len": (8, whole(1, 128))},
    "visibility": {"seq_len": (6, whole(1, 512))},
}


def sizes_help(name: str, lang: str = "en") -> str:
    """Each run's default and limits, for --help: "clm 2 (1..8), mlm 4 (1..4096)", in zh
    "clm 2（1..8）、mlm 4（1..4096）"."""
    sep, form = (
        ("、", "{run} {default}（{limits}）") if lang == "zh" else (", ", "{run} {default} ({limits})")
    )
    return sep.join(
        form.format(run=run, default=sizes[name][0], limits=sizes[name][1].limits)
        for run, sizes in SIZES.items()
        if name in sizes
    )


def _any_run(name: str) -> whole:
    """Every value some run accepts: what argparse checks before the run is known (its
    refusal lists each run's limits; _check_options then holds the value to its run's)."""
    limits = [sizes[name][1] for sizes in SIZES.values() if name in sizes]
    cases = ", ".join(f"{run} {sizes[name][1].limits}" for run, sizes in SIZES.items() if name in sizes)
    return whole(min(bounds.low for bounds in limits), max(bounds.high for bounds in limits), cases=cases)


ANY_BATCH, ANY_SEQ_LEN = _any_run("batch"), _any_run("seq_len")
_WHERE = {  # the runs each option applies to
    "seed": ("clm", "mlm"),
    **{name: tuple(run for run, sizes in SIZES.items() if name in sizes) for name in ("batch", "seq_len")},
    "p": ("mlm",),
    "text": ("three-samples",),
}


def _check_options(args: argparse.Namespace) -> None:
    """Options of another run are refused; sizes are checked against this run's limits."""
    refuse_inapplicable(
        args,
        PROG,
        [(name, args.run in runs, L(", ".join(runs), "、".join(runs))) for name, runs in _WHERE.items()],
    )
    for name, (default, limits) in SIZES.get(args.run, {}).items():
        value = getattr(args, name)
        if value is None:
            setattr(args, name, default)
        else:
            refuse_out_of_range(PROG, "--" + name.replace("_", "-"), limits, value)


def _ids(rows: list[list[int]]) -> list[list[str]]:
    return [[str(value) for value in row] for row in rows]


def _bits(rows: list[list[bool]]) -> list[list[str]]:
    return [["1" if value else "0" for value in row] for row in rows]


def run_textbook(args: argparse.Namespace, lang: str, console: Console) -> None:
    _check_options(args)  # before the engine (and torch) is imported
    from rich.text import Text

    from engine import textbook
    from engine.settings import MASK_RATE
    from tui.i18n import t
    from tui.render import (
        ALLOWED_STYLE,
        BLOCKED_STYLE,
        MAX_DRAWN_POSITIONS,
        drawable,
        emit_json,
        too_large,
        too_large_grid,
        value_grid,
    )

    width = console.width
    mask_layout = {  # a mask's rows are positions
        "width": width,
        "lang": lang,
        "styles": {"1": BLOCKED_STYLE, "0": ALLOWED_STYLE},
        "max_rows": MAX_DRAWN_POSITIONS,
    }
    if args.run == "clm":
        run = textbook.clm_run(seed=args.seed, batch=args.batch, seq_len=args.seq_len)
        if args.json:
            emit_json(
                {
                    "run": "clm",
                    "seed": args.seed,
                    "input_ids": run.input_ids.tolist(),
                    "loss": round(run.loss, 4),
                    "loss_unscaled": round(run.loss_unscaled, 4),
                    "baseline": round(run.baseline, 4),
                    "vocab_size": run.vocab_size,
                    "hidden_dim": run.hidden_dim,
                    "causal_mask": run.causal_mask.to(int).tolist(),
                }
            )
            return
        shape = list(run.input_ids.shape)
        console.print(t("tb-clm-ids", lang, shape=shape))
        console.print(value_grid(_ids(run.input_ids.tolist()), width=width, lang=lang, min_cell=5))
        console.print()
        console.print(Text(t("tb-clm-loss", lang, loss=f"{run.loss:.4f}"), style="bold"))
        console.print(
            Text(
                t(
                    "tb-clm-baseline",
                    lang,
                    V=run.vocab_size,
                    baseline=f"{run.baseline:.4f}",
                    d=run.hidden_dim,
                    unscaled=f"{run.loss_unscaled:.4f}",
                ),
                style="dim",
            )
        )
        console.print()
        console.print(t("tb-clm-mask", lang))
        console.print(value_grid(_bits(run.causal_mask.tolist()), **mask_layout))
    elif args.run == "mlm":
        p = MASK_RATE if args.p is None else args.p
        run = textbook.mlm_run(seed=args.seed, batch=args.batch, seq_len=args.seq_len, p=p)
        counts = run.counts()
        if args.json:
            emit_json(
                {
                    "run": "mlm",
                    "seed": args.seed,
                    "p": p,
                    "original_ids": run.original_ids.tolist(),
                    "selected": run.selected.to(int).tolist(),
                    "input_ids": run.input_ids.tolist(),
                    "labels": run.labels.tolist(),
                    "counts": counts,
                }
            )
            return
        if not drawable(args.batch, args.seq_len):  # the counts, and one line for the grids
            console.print(t("tb-mlm-original", lang))
            console.print(too_large_grid(args.batch, args.seq_len, lang))
            console.print()
        else:
            changed = {str(value) for value in run.input_ids[run.selected].tolist()}
            for key, grid, styles, cell in (
                ("tb-mlm-original", _ids(run.original_ids.tolist()), None, 5),
                ("tb-mlm-selected", _bits(run.selected.tolist()), {"1": "bold magenta"}, 1),
                ("tb-mlm-inputs", _ids(run.input_ids.tolist()), dict.fromkeys(changed, "bold cyan"), 5),
                ("tb-mlm-labels", _ids(run.labels.tolist()), {"-100": "dim"}, 5),
            ):
                console.print(t(key, lang))
                console.print(value_grid(grid, width=width, lang=lang, styles=styles, min_cell=cell))
                console.print()
        total = sum(counts.values())
        console.print(t("tb-mlm-total", lang, total=total))
        if total:
            for name in ("mask", "random", "keep"):
                console.print(
                    t(f"tb-mlm-{name}", lang, n=counts[name], pct=f"{100 * counts[name] / total:.1f}")
                )
    elif args.run == "visibility":
        run = textbook.visibility_run(seq_len=args.seq_len)
        if args.json:
            emit_json(
                {
                    "run": "visibility",
                    "causal_mask": run.causal_mask.to(int).tolist(),
                    "full_mask": run.full_mask.to(int).tolist(),
                    "causal_visible": run.causal_visible,
                    "full_visible": run.full_visible,
                }
            )
            return
        n = len(run.causal_visible)
        console.print(t("tb-vis-length", lang, n=n))
        console.print("-" * 40)
        if n > MAX_DRAWN_POSITIONS:
            console.print(too_large(n, lang))
            return
        for mask_key, sees_key, mask, visible in (
            ("tb-vis-causal", "tb-vis-causal-sees", run.causal_mask, run.causal_visible),
            ("tb-vis-full", "tb-vis-full-sees", run.full_mask, run.full_visible),
        ):
            console.print(t(mask_key, lang))
            console.print(value_grid(_bits(mask.tolist()), **mask_layout))
            console.print()
            console.print(t(sees_key, lang))
            for i, keys in enumerate(visible):
                console.print(t("tb-vis-row", lang, i=i, visible=keys), overflow="fold")
            console.print()
    else:
        kwargs = {} if args.text is None else {"text": args.text}
        run = textbook.three_samples(**kwargs)
        payload = {
            "run": "three-samples",
            "tokens": run.tokens,
            "causal_inputs": run.causal_inputs,
            "causal_labels": run.causal_labels,
            "masked_inputs": run.masked_inputs,
            "masked_labels": {str(k): v for k, v in run.masked_labels.items()},
            "span_inputs": run.span_inputs,
            "span_target": run.span_target,
        }
        if args.json:
            emit_json(payload)
            return
        for label, key in (
            ("causal inputs :", "causal_inputs"),
            ("causal labels :", "causal_labels"),
            (None, None),
            ("masked inputs :", "masked_inputs"),
            ("masked labels :", "masked_labels"),
            (None, None),
            ("span inputs   :", "span_inputs"),
            ("span target   :", "span_target"),
        ):
            if label is None:
                console.print()
                continue
            value = run.masked_labels if key == "masked_labels" else payload[key]
            console.print(Text(f"{label} {value!r}"), overflow="fold")
