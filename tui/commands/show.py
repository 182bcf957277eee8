"""``objectives-tutor show mask|sample``: engine results as tables or JSON."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from tui.errors import UsageError
from tui.i18n import t
from tui.render import emit_json, mask_grid, token_line, token_table

_SAMPLE_ONLY = {
    "mlm": ("p", "positions", "fates", "whole_word", "cls_sep"),
    "span": ("spans", "density", "mean_span"),
    "prefix": ("prefix",),
}
_DEFAULTS = {"p": 0.15, "density": 0.15, "mean_span": 3.0, "whole_word": False, "cls_sep": False}


def run_show(args: argparse.Namespace, lang: str, console: Console) -> None:
    if args.what == "mask":
        _show_mask(args, lang, console)
    else:
        _reject_foreign_options(args)
        _show_sample(args, lang, console)


def _reject_foreign_options(args: argparse.Namespace) -> None:
    """An option of another objective is a mistake worth saying, not ignoring."""
    for objective, names in _SAMPLE_ONLY.items():
        if objective == args.objective:
            continue
        for name in names:
            value = getattr(args, name)
            if value is not None and value != _DEFAULTS.get(name):
                flag = "--" + name.replace("_", "-")
                raise UsageError(
                    f"objectives-tutor show sample {args.objective}: {flag} applies to {objective} only"
                )


def _show_mask(args: argparse.Namespace, lang: str, console: Console) -> None:
    from engine.masks import mask_for

    prefix = args.prefix
    if args.kind != "prefix" and prefix is not None:
        raise UsageError(f"objectives-tutor show mask {args.kind}: --prefix applies to the prefix mask only")
    if args.kind == "prefix" and prefix is None:
        prefix = max(args.n, 0) // 2
    matrix = mask_for(args.kind, args.n, prefix or 0).to(int).tolist()
    if args.json:
        emit_json({"kind": args.kind, "n": args.n, "prefix": prefix, "mask": matrix})
        return
    console.print(Text(t(f"mask-title-{args.kind}", lang, prefix=prefix), style="bold"))
    console.print(mask_grid(matrix, width=console.width, lang=lang))


def _show_sample(args: argparse.Namespace, lang: str, console: Console) -> None:
    from engine import samples
    from engine.tokens import LESSON_SENTENCE

    if args.text is None:  # the default sentence, stated once in the engine (h4, issue 10)
        args.text = LESSON_SENTENCE

    if args.objective == "clm":
        sample = samples.clm_sample(args.text)
        if args.json:
            emit_json(sample.to_json())
            return
        console.print(Text(t("clm-heading", lang), style="bold"))
        console.print(Text(t("fig-clm-data-side", lang), style="bold"))
        console.print(
            token_table(
                [
                    (t("position", lang), range(len(sample.inputs))),
                    (t("input", lang), sample.inputs),
                    (t("label", lang), sample.labels),
                ]
            )
        )
        console.print()
        console.print(Text(t("fig-clm-loss-side", lang), style="bold"))
        pairs = {logit: label for logit, label in sample.loss_pairs}
        console.print(
            token_table(
                [
                    (t("position", lang), range(len(sample.loss_side_inputs))),
                    ("input_ids", sample.loss_side_inputs),
                    ("labels", sample.loss_side_labels),
                    (
                        t("fig-clm-pair", lang),
                        [
                            f"{position}→{pairs[position]}"
                            if position in pairs
                            else t("fig-clm-unused", lang)
                            for position in range(len(sample.loss_side_inputs))
                        ],
                    ),
                ]
            )
        )
        console.print(Text(t("fig-clm-layouts", lang), style="dim"))
        console.print()
        console.print(Text(t("mask-title-causal", lang), style="bold"))
        console.print(mask_grid(sample.mask, width=console.width, lang=lang))
    elif args.objective == "mlm":
        sample = samples.mlm_sample(
            args.text,
            seed=args.seed,
            p=args.p,
            positions=args.positions,
            fates=args.fates,
            whole_word=args.whole_word,
            add_cls_sep=args.cls_sep,
        )
        if args.json:
            emit_json(sample.to_json())
            return
        _print_mlm(sample, args.p, lang, console)
    elif args.objective == "span":
        sample = samples.span_sample(
            args.text, spans=args.spans, density=args.density, mean_span=args.mean_span, seed=args.seed
        )
        if args.json:
            emit_json(sample.to_json())
            return
        spans = ", ".join(f"{start}:{end}" for start, end in sample.spans)
        console.print(Text(t("span-heading", lang, spans=spans), style="bold"))
        console.print(token_line(t("span-inputs", lang), sample.inputs))
        console.print(token_line(t("span-targets", lang), sample.targets))
        from engine.tokens import sentinel

        ending = (
            t("fig-span-closed", lang, sentinel=sentinel(len(sample.spans)))
            if sample.closed
            else t("fig-span-open", lang)
        )
        console.print(Text(ending, style="dim"))
        console.print(Text(t("fig-span-eos", lang), style="dim"))
    else:
        sample = samples.prefix_sample(args.text, args.prefix)
        if args.json:
            emit_json(sample.to_json())
            return
        console.print(Text(t("prefix-heading", lang, prefix=sample.prefix), style="bold"))
        console.print(
            token_table(
                [
                    (t("position", lang), range(len(sample.inputs))),
                    (t("input", lang), sample.inputs),
                    (t("label", lang), [label or t("no-loss", lang) for label in sample.labels]),
                ],
                highlight=[label is not None for label in sample.labels],
            )
        )
        console.print()
        console.print(Text(t("mask-title-prefix", lang, prefix=sample.prefix), style="bold"))
        console.print(mask_grid(sample.mask, width=console.width, lang=lang))


def _print_mlm(sample, p: float, lang: str, console: Console) -> None:
    fate_words = {
        "mask": t("fate-mask", lang),
        "random": t("fate-random", lang),
        "keep": t("fate-keep", lang),
        None: "",
    }
    selected_marks = [
        "✓" if chosen else ("×" if not eligible else "")
        for chosen, eligible in zip(sample.selected, sample.eligible, strict=True)
    ]
    console.print(Text(t("mlm-heading", lang, p=p), style="bold"))
    console.print(
        token_table(
            [
                (t("position", lang), range(len(sample.tokens))),
                (t("token", lang), sample.tokens),
                (t("selected", lang), selected_marks),
                (t("fate", lang), [fate_words[fate] for fate in sample.fates]),
                (t("input", lang), sample.inputs),
                (t("label", lang), [label or t("no-loss", lang) for label in sample.labels]),
            ],
            highlight=[bool(chosen) for chosen in sample.selected],
        )
    )
    counts = sample.counts
    total = sum(counts.values())
    console.print(Text(t("mlm-counts", lang, total=total, **counts)))
    if not all(sample.eligible):
        console.print(Text("× = " + t("special", lang), style="dim"))
