"""``objectives-tutor show mask|sample``: engine results as tables or JSON."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from exercises.text import L
from tui.commands.arguments import refuse_inapplicable
from tui.i18n import t
from tui.render import emit_json, mask_grid, token_line, token_table

PROG = "objectives-tutor show"


def run_show(args: argparse.Namespace, lang: str, console: Console) -> None:
    if args.what == "mask":
        refuse_inapplicable(args, f"{PROG} mask", [("prefix", args.kind == "prefix", L("prefix", "prefix"))])
        _show_mask(args, lang, console)
    else:
        _refuse_inapplicable_sample_options(args)
        _show_sample(args, lang, console)


def _refuse_inapplicable_sample_options(args: argparse.Namespace) -> None:
    """Each option applies to one objective, some to one way of using it: typed anywhere
    else, it is refused rather than silently ignored."""
    mlm, span, explicit = args.objective == "mlm", args.objective == "span", args.spans is not None
    random_fate = "random" in (args.fates or ())
    drawn = (mlm and (args.positions is None or random_fate)) or (span and not explicit)
    random_spans = L("span without --spans", "不带 --spans 的 span")
    refuse_inapplicable(
        args,
        f"{PROG} sample",
        [
            ("p", mlm and args.positions is None, L("mlm without --positions", "不带 --positions 的 mlm")),
            ("positions", mlm, L("mlm", "mlm")),
            ("fates", mlm and args.positions is not None, L("mlm with --positions", "带 --positions 的 mlm")),
            ("whole_word", mlm, L("mlm", "mlm")),
            ("cls_sep", mlm, L("mlm", "mlm")),
            ("spans", span, L("span", "span")),
            ("density", span and not explicit, random_spans),
            ("mean_span", span and not explicit, random_spans),
            (
                "seed",
                drawn,
                L(
                    "what is drawn at random: mlm (without --positions, or with a random fate) and span without --spans",
                    "随机抽取的内容：mlm（不带 --positions，或有 random 处理）和不带 --spans 的 span",
                ),
            ),
            ("prefix", args.objective == "prefix", L("prefix", "prefix")),
        ],
    )


def _show_mask(args: argparse.Namespace, lang: str, console: Console) -> None:
    from engine.masks import mask_for

    prefix = args.prefix
    if args.kind == "prefix" and prefix is None:
        prefix = args.n // 2
    matrix = mask_for(args.kind, args.n, prefix or 0).to(int).tolist()
    if args.json:
        emit_json({"kind": args.kind, "n": args.n, "prefix": prefix, "mask": matrix})
        return
    console.print(Text(t(f"mask-title-{args.kind}", lang, prefix=prefix), style="bold"))
    console.print(mask_grid(matrix, width=console.width, lang=lang))


def _show_sample(args: argparse.Namespace, lang: str, console: Console) -> None:
    from engine import samples
    from engine.settings import MASK_RATE, MEAN_SPAN, NOISE_DENSITY
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
                ],
                lang=lang,
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
                ],
                lang=lang,
            )
        )
        console.print(Text(t("fig-clm-layouts", lang), style="dim"))
        console.print()
        console.print(Text(t("mask-title-causal", lang), style="bold"))
        console.print(mask_grid(sample.mask, width=console.width, lang=lang))
    elif args.objective == "mlm":
        p = MASK_RATE if args.p is None else args.p
        sample = samples.mlm_sample(
            args.text,
            seed=args.seed,
            p=p,
            positions=args.positions,
            fates=args.fates,
            whole_word=args.whole_word,
            add_cls_sep=args.cls_sep,
        )
        if args.json:
            emit_json(sample.to_json())
            return
        _print_mlm(sample, p, lang, console)
    elif args.objective == "span":
        sample = samples.span_sample(
            args.text,
            spans=args.spans,
            density=NOISE_DENSITY if args.density is None else args.density,
            mean_span=MEAN_SPAN if args.mean_span is None else args.mean_span,
            seed=args.seed,
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
                lang=lang,
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
            lang=lang,
            highlight=[bool(chosen) for chosen in sample.selected],
        )
    )
    counts = sample.counts
    total = sum(counts.values())
    console.print(Text(t("mlm-counts", lang, total=total, **counts)))
    if not all(sample.eligible):
        console.print(Text("× = " + t("special", lang), style="dim"))
