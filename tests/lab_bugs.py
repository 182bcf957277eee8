"""Classic wrong solutions of the code lab's tasks, as edits of the reference
solutions, with the rule (and misconception) each must be failed with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    name: str
    task: str
    old: str  # a line of the reference solution ...
    new: str  # ... and what the buggy version writes instead
    rule: str
    diagnosis: str | None = None


BUGS: tuple[Bug, ...] = (
    Bug(
        "labels on every position",
        "bert_mask",
        "labels = torch.where(selected, ids, torch.full_like(ids, -100))",
        "labels = ids.clone()",
        "labels-off-selected",
        "loss-includes-unselected",
    ),
    Bug(
        "specials selectable",
        "bert_mask",
        "selected = (torch.rand(ids.shape, generator=generator) < p) & ~special",
        "selected = torch.rand(ids.shape, generator=generator) < p",
        "specials-never-selected",
        "specials-selected",
    ),
    Bug(
        "random drawn from specials",
        "bert_mask",
        "pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)], dtype=ids.dtype)",
        "pool = torch.arange(vocab_size)",
        "random-not-special",
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
    ),
    Bug(
        "70/15/15 instead of 80/10/10",
        "bert_mask",
        "masked = selected & (fate < 0.8)",
        "masked = selected & (fate < 0.7)",
        "split-80-10-10",
        "split-of-all-tokens",
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
    ),
    Bug(
        "closing sentinel always",
        "span_corrupt",
        "if kept_from < len(tokens):",
        "if True:",
        "closing-sentinel",
    ),
    Bug(
        "no EOS",
        "span_corrupt",
        "return torch.tensor(inputs + [eos_id]), torch.tensor(targets + [eos_id])",
        "return torch.tensor(inputs), torch.tensor(targets)",
        "eos-at-end",
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
    ),
    Bug(
        "mean over every position, -100 included",
        "clm_loss",
        "shifted_labels.reshape(-1), ignore_index=-100\n    )",
        "shifted_labels.reshape(-1), ignore_index=-100, reduction='sum'\n    ) / shifted_labels.numel()",
        "loss-equals-engine",
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
    ),
    Bug(
        "padding blocks query rows too",
        "padded_causal_mask",
        "return causal[None, :, :] | key_is_padding",
        "return causal[None, :, :] | key_is_padding | (attention_mask == 0)[:, :, None]",
        "padding-blocks-keys-only",
    ),
    Bug(
        "padding ignored",
        "padded_causal_mask",
        "return causal[None, :, :] | key_is_padding",
        "return causal[None, :, :].expand(attention_mask.shape[0], length, length)",
        "padding-keys-blocked",
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
)


def buggy_source(solution: str, bug: Bug) -> str:
    assert bug.old in solution, f"{bug.name}: {bug.old!r} is not in the reference solution"
    return solution.replace(bug.old, bug.new, 1)
