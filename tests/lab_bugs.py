"""Classic wrong solutions of the code lab's tasks, as edits of the reference
solutions, with the rule (and misconception, or convention note) each must be
failed with. The later ones are the bugs the checks once let through (issue 20):
inputs changed in place, draws outside the generator, a replacement that is not
uniform, specials drawn, a fixed count per row, one fate per word, int32 ids, an
empty span list, p rescaled; and the ones once given the wrong name."""

from __future__ import annotations

from dataclasses import dataclass

from exercises.training.own_code import BY_SLUG as SHIPPED


@dataclass(frozen=True)
class Bug:
    name: str
    task: str
    old: str  # a line of the reference solution ...
    new: str  # ... and what the buggy version writes instead
    rule: str
    diagnosis: str | None = None
    note: str | None = None  # words the convention note must contain (None: no note)


BUGS: tuple[Bug, ...] = (
    # (the two the training lab also ships take their edit from there: one edit, one place)
    Bug(
        "labels on every position",
        "bert_mask",
        SHIPPED["labels_everywhere"].find,
        SHIPPED["labels_everywhere"].replace,
        "labels-off-selected",
        "loss-includes-unselected",
    ),
    Bug(
        "specials selectable",
        "bert_mask",
        SHIPPED["specials_selectable"].find,
        SHIPPED["specials_selectable"].replace,
        "specials-never-selected",
        "specials-selected",
    ),
    Bug(
        "random drawn from specials",
        "bert_mask",
        "pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)], dtype=ids.dtype)",
        "pool = torch.arange(vocab_size)",
        "random-not-special",
        "random-word-special",
    ),
    Bug(
        "label is [MASK]",
        "bert_mask",
        "labels = torch.where(selected, ids, torch.full_like(ids, -100))",
        "labels = torch.where(selected, input_ids, torch.full_like(ids, -100))",
        "label-is-original",
        "label-is-mask",
    ),
    Bug(
        "global RNG instead of the generator",
        "bert_mask",
        "selected = (torch.rand(ids.shape, generator=generator) < p) & ~special",
        "selected = (torch.rand(ids.shape) < p) & ~special",
        "reproducible",
        "global-rng",
    ),
    Bug(
        "70/15/15 instead of 80/10/10",
        "bert_mask",
        "masked = selected & (fate < 0.8)",
        "masked = selected & (fate < 0.7)",
        "split-80-10-10",
        "split-not-80-10-10",
    ),
    Bug(
        "a hard-coded 12 % selection rate at p = 0.15",
        "bert_mask",
        "selected = (torch.rand(ids.shape, generator=generator) < p) & ~special",
        "selected = (torch.rand(ids.shape, generator=generator) < (0.12 if p == 0.15 else p)) & ~special",
        "selection-rate",
    ),
    Bug(
        "mask including the diagonal",
        "causal_mask",
        "return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)",
        "return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=0)",
        "diagonal-visible",
        "mask-blocks-diagonal",
    ),
    Bug(
        "mask inverted (True = may look)",
        "causal_mask",
        "return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)",
        "return ~torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)",
        "diagonal-visible",
        "mask-inverted",
    ),
    Bug(
        "off-by-one prefix",
        "prefix_lm_mask",
        "allowed = (key <= query) | (key < prefix_len)",
        "allowed = (key <= query) | (key <= prefix_len)",
        "prefix-boundary",
        "prefix-sees-continuation",
    ),
    Bug(
        "prefix ignored (plain causal)",
        "prefix_lm_mask",
        "allowed = (key <= query) | (key < prefix_len)",
        "allowed = key <= query",
        "prefix-visible",
        "prefix-ignored",
    ),
    Bug(
        "sentinel numbering from 1",
        "span_corrupt",
        "inputs += tokens[kept_from:start] + [sentinel_ids[k]]\n        targets += [sentinel_ids[k]] + tokens[start:end]",
        "inputs += tokens[kept_from:start] + [sentinel_ids[k + 1]]\n        targets += [sentinel_ids[k + 1]] + tokens[start:end]",
        "sentinel-order",
        "sentinel-numbering-from-1",
    ),
    Bug(
        "touching spans not merged",
        "span_corrupt",
        "if merged and merged[-1][1] == start:",
        "if False:",
        "one-sentinel-per-span",
        "touching-spans-split",
    ),
    Bug(
        "closing sentinel always",
        "span_corrupt",
        "if kept_from < len(tokens):",
        "if True:",
        "closing-sentinel",
        "target-extra-final-sentinel",
    ),
    Bug(
        "no EOS",
        "span_corrupt",
        "return torch.tensor(inputs + [eos_id]), torch.tensor(targets + [eos_id])",
        "return torch.tensor(inputs), torch.tensor(targets)",
        "eos-at-end",
        "eos-missing",
    ),
    Bug(
        "shift the wrong way (data side)",
        "clm_shift",
        "return tokens[..., :-1], tokens[..., 1:]",
        "return tokens[..., 1:], tokens[..., :-1]",
        "inputs-drop-last",
        "shifted-wrong-way",
    ),
    Bug(
        "shift the wrong way (loss side)",
        "loss_side_pairs",
        "return logits[:, :-1, :], labels[:, 1:]",
        "return logits[:, 1:, :], labels[:, :-1]",
        "logits-drop-last",
        "shifted-wrong-way",
    ),
    Bug(
        "loss by hand, -100 taken as a class",
        "clm_loss",
        "    return F.cross_entropy(\n        shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1), ignore_index=-100\n    )",
        "    log_p = torch.log_softmax(shifted_logits, dim=-1)\n    return -log_p.gather(-1, shifted_labels.unsqueeze(-1)).mean()",
        "ignore-index",
        "ignore-index-as-class",
    ),
    Bug(
        "mean over every position, -100 included",
        "clm_loss",
        "shifted_labels.reshape(-1), ignore_index=-100\n    )",
        "shifted_labels.reshape(-1), ignore_index=-100, reduction='sum'\n    ) / shifted_labels.numel()",
        "loss-equals-engine",
        "mean-includes-ignored",
    ),
    Bug(
        "loss not shifted",
        "clm_loss",
        "shifted_logits = logits[:, :-1, :]\n    shifted_labels = labels[:, 1:]",
        "shifted_logits = logits\n    shifted_labels = labels",
        "loss-equals-engine",
        "labels-not-shifted",
    ),
    Bug(
        "projection not scaled by 1/sqrt(d)",
        "lesson_clm_run",
        "projection = torch.randn(hidden_dim, vocab_size, generator=g) / hidden_dim**0.5",
        "projection = torch.randn(hidden_dim, vocab_size, generator=g)",
        "loss-matches-lesson",
        "scaling-bug-missed",
    ),
    Bug(
        "fate from the selection draw",
        "lesson_mlm_run",
        "fate = torch.rand(original.shape, generator=g)",
        "fate = torch.rand(original.shape, generator=g) * 0 + 0.5",
        "same-fates",
    ),
    Bug(
        "[CLS]/[SEP] maskable",
        "mask_content",
        "special = ids < 5",
        "special = ids < 0",
        "cls-sep-in-place",
        "specials-selected",
    ),
    Bug(
        "pieces selected one by one",
        "whole_word_mask",
        "selected[i] = bool(draws[start] < p)",
        "selected[i] = bool(draws[i] < p)",
        "whole-words",
        "pieces-masked-separately",
    ),
    Bug(
        "padding blocks query rows too",
        "padded_causal_mask",
        "return causal[None, :, :] | key_is_padding",
        "return causal[None, :, :] | key_is_padding | (attention_mask == 0)[:, :, None]",
        "padding-blocks-keys-only",
        "padding-blocks-queries",
    ),
    Bug(
        "padding ignored",
        "padded_causal_mask",
        "return causal[None, :, :] | key_is_padding",
        "return causal[None, :, :].expand(attention_mask.shape[0], length, length)",
        "padding-keys-blocked",
        "padding-attended",
    ),
    Bug(
        "lesson's causal pair the wrong way",
        "three_samples",
        "causal_inputs, causal_labels = tokens[:-1], tokens[1:]",
        "causal_inputs, causal_labels = tokens[1:], tokens[:-1]",
        "causal-pair",
        "shifted-wrong-way",
    ),
    Bug(
        "lesson's span end included",
        "three_samples",
        'span_target = ["<extra_id_0>"] + tokens[start:end] + ["<extra_id_1>"]',
        'span_target = ["<extra_id_0>"] + tokens[start:end + 1] + ["<extra_id_1>"]',
        "span-sample",
        "span-end-inclusive",
    ),
    # -- the bugs the checks once accepted (issue 20) ------------------------------------------
    Bug(
        "ids changed in place (labels read first)",
        "bert_mask",
        "    input_ids = ids.clone()\n",
        "    labels = torch.where(selected, ids, torch.full_like(ids, -100))\n    input_ids = ids\n",
        "inputs-unchanged",
        "inputs-modified-in-place",
    ),
    Bug(
        "random words from the global RNG",
        "bert_mask",
        "draws = torch.randint(0, len(pool), (int(randomised.sum()),), generator=generator)",
        "draws = torch.randint(0, len(pool), (int(randomised.sum()),))",
        "reproducible",
        "global-rng",
    ),
    Bug(
        "random words from the first few of the pool",
        "bert_mask",
        "input_ids[randomised] = pool[draws]",
        "input_ids[randomised] = pool[draws % 3]",
        "random-uniform",
        "random-word-not-uniform",
    ),
    Bug(
        "round(p * eligible) selected per row",
        "bert_mask",
        "    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special\n",
        "    scores = torch.rand(ids.shape, generator=generator).masked_fill(special, 2.0)\n"
        "    selected = torch.zeros_like(special)\n"
        "    for row in range(ids.shape[0]):\n"
        "        k = round(p * int((~special[row]).sum()))\n"
        "        selected[row, scores[row].argsort()[:k]] = True\n",
        "selection-rate-short-rows",
        "selection-fixed-count",
    ),
    Bug(
        "the random word never the original",
        "bert_mask",
        "    input_ids[randomised] = pool[draws]\n",
        "    replacement, originals = pool[draws], ids[randomised]\n"
        "    while len(pool) > 1 and bool((replacement == originals).any()):\n"
        "        again = replacement == originals\n"
        "        replacement[again] = pool[torch.randint(0, len(pool), (int(again.sum()),), generator=generator)]\n"
        "    input_ids[randomised] = replacement\n",
        "split-80-10-10",
        "random-excludes-original",
    ),
    Bug(
        "85/5/10 instead of 80/10/10",
        "bert_mask",
        "    masked = selected & (fate < 0.8)\n    randomised = selected & (fate >= 0.8) & (fate < 0.9)\n",
        "    masked = selected & (fate < 0.85)\n    randomised = selected & (fate >= 0.85) & (fate < 0.9)\n",
        "split-80-10-10",
        "split-not-80-10-10",
    ),
    Bug(
        "labels as int32",
        "bert_mask",
        "    return input_ids, labels\n",
        "    return input_ids, labels.int()\n",
        "ids-long",
        "ids-not-long",
    ),
    Bug(
        "random words may be specials (randint(0, 10000))",
        "mask_content",
        "torch.randint(5, 10000, (int(randomised.sum()),), generator=generator)",
        "torch.randint(0, 10000, (int(randomised.sum()),), generator=generator)",
        "random-not-special",
        "random-word-special",
    ),
    Bug(
        "p rescaled by (L + 2) / L",
        "mask_content",
        "selected = (torch.rand(ids.shape, generator=generator) < p) & ~special",
        "selected = (torch.rand(ids.shape, generator=generator) < p * len(ids) / max(len(content), 1)) & ~special",
        "selection-rate-short-rows",
        "p-rescaled",
    ),
    Bug(
        "one fate for all pieces of a word",
        "whole_word_mask",
        "            start = i\n",
        "            start = i\n        fate[i] = fate[start]\n",
        "fate-per-piece",
        "word-one-fate",
    ),
    Bug(
        "a generator of its own",
        "whole_word_mask",
        "    draws = torch.rand(ids.shape, generator=generator)\n",
        "    generator = torch.Generator().manual_seed(0)\n    draws = torch.rand(ids.shape, generator=generator)\n",
        "generator-used",
        "generator-ignored",
    ),
    Bug(
        "loss.item() returned",
        "clm_loss",
        "ignore_index=-100\n    )\n",
        "ignore_index=-100\n    ).item()\n",
        "loss-is-tensor",
        "loss-not-tensor",
    ),
    Bug(
        "labels written into (the loss still right)",
        "clm_loss",
        "    shifted_logits = logits[:, :-1, :]\n",
        "    labels[:, 0] = -100  # never a label in the loss anyway\n    shifted_logits = logits[:, :-1, :]\n",
        "inputs-unchanged",
        "inputs-modified-in-place",
    ),
    Bug(
        "span ids as int32",
        "span_corrupt",
        "return torch.tensor(inputs + [eos_id]), torch.tensor(targets + [eos_id])",
        "return torch.tensor(inputs + [eos_id], dtype=torch.int32), torch.tensor(targets + [eos_id], dtype=torch.int32)",
        "ids-long",
        "ids-not-long",
    ),
    Bug(
        "crashes on an empty span list",
        "span_corrupt",
        "    inputs += tokens[kept_from:]\n",
        "    inputs += tokens[merged[-1][1] :]\n",
        "runs",
    ),
    Bug(
        "T5's own sentinel functions, ported literally",
        "span_corrupt",
        "    merged = []\n",
        "    noise = [any(s <= i < e for s, e in spans) for i in range(len(ids))]\n"
        "\n"
        "    def to_sentinels(mask):\n"
        "        out, count, previous = [], 0, False\n"
        "        for token, hidden in zip(ids.tolist(), mask):\n"
        "            if hidden and not previous:\n"
        "                out.append(sentinel_ids[count])\n"
        "                count += 1\n"
        "            elif not hidden:\n"
        "                out.append(token)\n"
        "            previous = hidden\n"
        "        return out\n"
        "\n"
        "    return (\n"
        "        torch.tensor(to_sentinels(noise) + [eos_id]),\n"
        "        torch.tensor(to_sentinels([not n for n in noise]) + [eos_id]),\n"
        "    )\n"
        "    merged = []\n",
        "sentinel-before-span",
        None,
        "convention",
    ),
    Bug(
        "the lesson's sample with </s> appended",
        "three_samples",
        'span_target = ["<extra_id_0>"] + tokens[start:end] + ["<extra_id_1>"]',
        'span_target = ["<extra_id_0>"] + tokens[start:end] + ["<extra_id_1>", "</s>"]',
        "span-sample",
        None,
        "no </s>",
    ),
    Bug(
        "tuples instead of lists",
        "three_samples",
        "causal_inputs, causal_labels = tokens[:-1], tokens[1:]",
        "causal_inputs, causal_labels = tuple(tokens[:-1]), tuple(tokens[1:])",
        "shape",
    ),
    Bug(
        "[MASK] written into the caller's tokens",
        "three_samples",
        "masked_inputs = list(tokens)",
        "masked_inputs = tokens",
        "inputs-unchanged",
        "inputs-modified-in-place",
    ),
    Bug(
        "hidden drawn before the projection",
        "lesson_clm_run",
        "    projection = torch.randn(hidden_dim, vocab_size, generator=g) / hidden_dim**0.5\n"
        "    hidden = torch.randn(batch, seq_len, hidden_dim, generator=g)\n",
        "    hidden = torch.randn(batch, seq_len, hidden_dim, generator=g)\n"
        "    projection = torch.randn(hidden_dim, vocab_size, generator=g) / hidden_dim**0.5\n",
        "same-draws",
    ),
    Bug(
        "the lesson's global RNG for the random word",
        "lesson_mlm_run",
        "input_ids[i, j] = torch.randint(5, 10000, (1,), generator=g).item()",
        "input_ids[i, j] = torch.randint(5, 10000, (1,)).item()",
        "reproducible",
        "global-rng",
    ),
    # issue 31: wrong files the checks once accepted, and mistakes once given another name
    Bug(
        "a NaN loss (lesson_clm_run)",
        "lesson_clm_run",
        "    return input_ids, loss.item(), mask\n",
        "    return input_ids, float('nan'), mask\n",
        "loss-matches-lesson",
    ),
    Bug(
        'the string "nan" as the loss',
        "lesson_clm_run",
        "    return input_ids, loss.item(), mask\n",
        "    return input_ids, 'nan', mask\n",
        "shape",
    ),
    Bug(
        "an infinite loss (lesson_clm_run)",
        "lesson_clm_run",
        "    return input_ids, loss.item(), mask\n",
        "    return input_ids, float('inf'), mask\n",
        "loss-matches-lesson",
    ),
    Bug(
        "a NaN loss tensor (clm_loss)",
        "clm_loss",
        "ignore_index=-100\n    )\n",
        "ignore_index=-100\n    ) * float('nan')\n",
        "loss-equals-engine",
    ),
    Bug(
        "a new tensor that says it requires grad",
        "clm_loss",
        "    return F.cross_entropy(\n        shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1), ignore_index=-100\n    )\n",
        "    loss = F.cross_entropy(shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1))\n"
        "    return torch.tensor(loss.item(), requires_grad=True)\n",
        "loss-is-tensor",
        "loss-not-tensor",
    ),
    Bug(
        "connected, but with a gradient of zero",
        "clm_loss",
        "    return F.cross_entropy(\n        shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1), ignore_index=-100\n    )\n",
        "    loss = F.cross_entropy(shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1))\n"
        "    return loss.detach() + 0 * logits.sum()\n",
        "loss-is-tensor",
        "loss-not-tensor",
    ),
    Bug(
        "nll_loss on raw logits",
        "clm_loss",
        "    return F.cross_entropy(\n",
        "    return F.nll_loss(\n",
        "loss-equals-engine",
        "loss-nll-on-logits",
    ),
    Bug(
        "the mean of each row's mean",
        "clm_loss",
        "    return F.cross_entropy(\n        shifted_logits.reshape(-1, shifted_logits.shape[-1]), shifted_labels.reshape(-1), ignore_index=-100\n    )\n",
        "    per_token = F.cross_entropy(shifted_logits.transpose(1, 2), shifted_labels, ignore_index=-100, reduction='none')\n"
        "    kept = (shifted_labels != -100).float()\n"
        "    rows = kept.sum(dim=1) > 0\n"
        "    return ((per_token * kept).sum(dim=1)[rows] / kept.sum(dim=1)[rows]).mean()\n",
        "loss-equals-engine",
        "loss-mean-per-row",
    ),
    Bug(
        "the loss summed, not averaged",
        "clm_loss",
        "shifted_labels.reshape(-1), ignore_index=-100\n    )",
        "shifted_labels.reshape(-1), ignore_index=-100, reduction='sum'\n    )",
        "loss-equals-engine",
        "loss-summed",
    ),
    Bug(
        "prefix-LM mask inverted (True = may look)",
        "prefix_lm_mask",
        "    return ~allowed\n",
        "    return allowed\n",
        "diagonal-visible",  # as the inverted causal mask: shown on a 2 x 2 mask, its first cell
        "mask-inverted",
    ),
    Bug(
        "sentinels from <extra_id_1>, closing one included",
        "span_corrupt",
        "    merged = []\n",
        "    sentinel_ids = sentinel_ids[1:]\n    merged = []\n",
        "sentinel-order",
        "sentinel-numbering-from-1",
    ),
    Bug(
        "</s> before the closing sentinel",
        "span_corrupt",
        "    if kept_from < len(tokens):\n        targets.append(sentinel_ids[len(merged)])\n"
        "    return torch.tensor(inputs + [eos_id]), torch.tensor(targets + [eos_id])\n",
        "    targets.append(eos_id)\n"
        "    if kept_from < len(tokens):\n        targets.append(sentinel_ids[len(merged)])\n"
        "    return torch.tensor(inputs + [eos_id]), torch.tensor(targets)\n",
        "eos-at-end",
        "eos-before-closing-sentinel",
    ),
    Bug(
        "80/10/10 applied to every token (bert_mask)",
        "bert_mask",
        "    masked = selected & (fate < 0.8)\n    randomised = selected & (fate >= 0.8) & (fate < 0.9)\n",
        "    masked = ~special & (fate < 0.8)\n    randomised = ~special & (fate >= 0.8) & (fate < 0.9)\n",
        "unselected-unchanged",
        "split-of-all-tokens",
    ),
    Bug(
        "80/10/10 applied to every token (mask_content)",
        "mask_content",
        "    input_ids[selected & (fate < 0.8)] = 4\n    randomised = selected & (fate >= 0.8) & (fate < 0.9)\n",
        "    input_ids[~special & (fate < 0.8)] = 4\n    randomised = ~special & (fate >= 0.8) & (fate < 0.9)\n",
        "unselected-unchanged",
        "split-of-all-tokens",
    ),
    Bug(
        "one uniform for selection and fate (bert_mask)",
        "bert_mask",
        "    fate = torch.rand(ids.shape, generator=generator)\n",
        "    generator.manual_seed(generator.initial_seed())\n    fate = torch.rand(ids.shape, generator=generator)\n",
        "split-80-10-10",
        "fate-reuses-selection-draw",
    ),
    Bug(
        "one uniform for selection and fate (mask_content)",
        "mask_content",
        "    fate = torch.rand(ids.shape, generator=generator)\n",
        "    generator.manual_seed(generator.initial_seed())\n    fate = torch.rand(ids.shape, generator=generator)\n",
        "split-80-10-10",
        "fate-reuses-selection-draw",
    ),
    Bug(
        "one uniform for selection and fate (whole_word_mask)",
        "whole_word_mask",
        "    fate = torch.rand(ids.shape, generator=generator)\n",
        "    fate = draws\n",
        "split-80-10-10",  # only the first piece's fate is its selection draw: a mix no name fits
        "split-not-80-10-10",
    ),
    Bug(
        "one selection per column, broadcast over the rows",
        "bert_mask",
        "    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special\n",
        "    selected = (torch.rand(ids.shape[-1:], generator=generator) < p).expand(ids.shape) & ~special\n",
        "selection-independent",
        "rows-masked-together",
    ),
    Bug(
        "p ignored except at 0 and 1",
        "bert_mask",
        "    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special\n",
        "    rate = p if p in (0.0, 1.0) else 0.15\n"
        "    selected = (torch.rand(ids.shape, generator=generator) < rate) & ~special\n",
        "selection-rate",
        "selection-ignores-p",
    ),
    Bug(
        "the lesson's loop walking columns before rows",
        "lesson_mlm_run",
        "    for i in range(batch):\n        for j in range(seq_len):\n",
        "    for j in range(seq_len):\n        for i in range(batch):\n",
        "same-fates",
    ),
    Bug(
        "padded causal mask inverted (True = may look)",
        "padded_causal_mask",
        "    return causal[None, :, :] | key_is_padding\n",
        "    return ~(causal[None, :, :] | key_is_padding)\n",
        "padding-keys-blocked",
        "mask-inverted",
    ),
)


def buggy_source(solution: str, bug: Bug) -> str:
    assert bug.old in solution, f"{bug.name}: {bug.old!r} is not in the reference solution"
    return solution.replace(bug.old, bug.new, 1)
