"""``objectives-tutor textbook RUN``: the lessons' runs, printed as the lessons
print them (or as JSON)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from tui.errors import UsageError
from tui.i18n import t
from tui.render import ALLOWED_STYLE, BLOCKED_STYLE, emit_json, value_grid

_APPLIES = {
    "batch": ("clm", "mlm"),
    "seq_len": ("clm", "mlm", "visibility"),
    "p": ("mlm",),
    "text": ("three-samples",),
}


def _check_options(args: argparse.Namespace) -> None:
    for name, runs in _APPLIES.items():
        if getattr(args, name) is not None and args.run not in runs:
            flag = "--" + name.replace("_", "-")
            raise UsageError(
                f"objectives-tutor textbook {args.run}: {flag} applies to {', '.join(runs)} only"
            )


def _ids(rows: list[list[int]]) -> list[list[str]]:
    return [[str(value) for value in row] for row in rows]


def _bits(rows: list[list[bool]]) -> list[list[str]]:
    return [["1" if value else "0" for value in row] for row in rows]


def run_textbook(args: argparse.Namespace, lang: str, console: Console) -> None:
    from engine import textbook

    _check_options(args)
    width = console.width
    mask_styles = {"1": BLOCKED_STYLE, "0": ALLOWED_STYLE}
    if args.run == "clm":
        run = textbook.clm_run(seed=args.seed, batch=args.batch or 2, seq_len=args.seq_len or 8)
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
        console.print(value_grid(_bits(run.causal_mask.tolist()), width=width, lang=lang, styles=mask_styles))
    elif args.run == "mlm":
        p = 0.15 if args.p is None else args.p
        run = textbook.mlm_run(seed=args.seed, batch=args.batch or 4, seq_len=args.seq_len or 8, p=p)
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
        run = textbook.visibility_run(seq_len=args.seq_len or 6)
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
        for mask_key, sees_key, mask, visible in (
            ("tb-vis-causal", "tb-vis-causal-sees", run.causal_mask, run.causal_visible),
            ("tb-vis-full", "tb-vis-full-sees", run.full_mask, run.full_visible),
        ):
            console.print(t(mask_key, lang))
            console.print(value_grid(_bits(mask.tolist()), width=width, lang=lang, styles=mask_styles))
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
