"""Correct solutions of the code lab's tasks written unlike the references: other
draw orders, loops, torch.bernoulli, rejection sampling, narrow, roll-then-trim,
index_select, einsum... Every one must pass its task's checks (the false-reject
rate is zero). Each is a function named ``<task id>__<style>``; ``variant_source``
turns it into the learner's file (the function renamed to the task's)."""

from __future__ import annotations

import inspect

import torch
import torch.nn.functional as F

# -- 01 three_samples ---------------------------------------------------------------


def three_samples__comprehensions(tokens, mask_positions, start, end):
    hidden = set(mask_positions)
    causal = (tokens[:-1], tokens[1:])
    masked_inputs = ["[MASK]" if i in hidden else token for i, token in enumerate(tokens)]
    masked_labels = {i: tokens[i] for i in mask_positions}
    span_inputs = [*tokens[:start], "<extra_id_0>", *tokens[end:]]
    span_target = ["<extra_id_0>", *tokens[start:end], "<extra_id_1>"]
    return (*causal, masked_inputs, masked_labels, span_inputs, span_target)


def three_samples__copy_then_edit(tokens, mask_positions, start, end):
    masked = tokens.copy()
    labels = {}
    for position in sorted(mask_positions):
        labels[position] = masked[position]
        masked[position] = "[MASK]"
    span_inputs = list(tokens)
    del span_inputs[start:end]
    span_inputs.insert(start, "<extra_id_0>")
    target = ["<extra_id_0>"]
    target.extend(tokens[start:end])
    target.append("<extra_id_1>")
    return list(tokens[:-1]), list(tokens[1:]), masked, labels, span_inputs, target


# -- 02 clm_shift ----------------------------------------------------------------------


def clm_shift__narrow(tokens):
    n = tokens.shape[-1]
    return tokens.narrow(-1, 0, n - 1), tokens.narrow(-1, 1, n - 1)


def clm_shift__roll_then_trim(tokens):
    return tokens[..., :-1].clone(), torch.roll(tokens, shifts=-1, dims=-1)[..., :-1]


def clm_shift__index_select(tokens):
    n = tokens.shape[-1]
    return tokens.index_select(-1, torch.arange(n - 1)), tokens.index_select(-1, torch.arange(1, n))


# -- 03 loss_side_pairs -----------------------------------------------------------------


def loss_side_pairs__narrow(logits, input_ids):
    n = logits.shape[1]
    return logits.narrow(1, 0, n - 1), input_ids.narrow(1, 1, n - 1)


def loss_side_pairs__roll_then_trim(logits, input_ids):
    return logits.roll(1, dims=1)[:, 1:], input_ids.roll(-1, dims=1)[:, :-1]


def loss_side_pairs__contiguous(logits, input_ids):
    return logits[:, :-1].contiguous(), input_ids[:, 1:].contiguous()


# -- 04 clm_loss ---------------------------------------------------------------------------


def clm_loss__by_hand(logits, labels):
    log_p = torch.log_softmax(logits[:, :-1], dim=-1)
    targets = labels[:, 1:]
    real = targets != -100
    picked = log_p.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -(picked * real).sum() / real.sum()


def clm_loss__nll_loss(logits, labels):
    log_p = F.log_softmax(logits[:, :-1].flatten(0, 1), dim=-1)
    return F.nll_loss(log_p, labels[:, 1:].flatten(), ignore_index=-100)


def clm_loss__reduction_none(logits, labels):
    shifted = logits[:, :-1].transpose(1, 2)  # (B, V, L-1): cross_entropy's class dimension second
    losses = F.cross_entropy(shifted, labels[:, 1:], reduction="none", ignore_index=-100)
    real = labels[:, 1:] != -100
    return losses[real].mean()


def clm_loss__row_loop(logits, labels):
    total, count = logits.new_zeros(()), 0
    for row in range(logits.shape[0]):
        keep = labels[row, 1:] != -100
        if keep.any():
            total = total + F.cross_entropy(logits[row, :-1][keep], labels[row, 1:][keep], reduction="sum")
            count += int(keep.sum())
    return total / count


# -- 05 lesson_clm_run --------------------------------------------------------------------------


def lesson_clm_run__einsum(seed, batch, seq_len):
    g = torch.Generator()
    g.manual_seed(seed)
    ids = torch.randint(0, 10000, (batch, seq_len), generator=g)
    projection = torch.randn(64, 10000, generator=g) / 8
    hidden = torch.randn(batch, seq_len, 64, generator=g)
    logits = torch.einsum("bld,dv->blv", hidden, projection)
    loss = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:])
    positions = torch.arange(seq_len)
    mask = positions[None, :] > positions[:, None]
    return ids, float(loss), mask


# -- 06 bert_mask -------------------------------------------------------------------------------


def bert_mask__fate_first(ids, special_ids, mask_id, vocab_size, p, generator):
    fate = torch.rand(ids.shape, generator=generator)
    selected = torch.rand(ids.shape, generator=generator) < p
    for special in special_ids:
        selected &= ids != special
    out = ids.clone()
    out[selected & (fate < 0.8)] = mask_id
    random = selected & (fate >= 0.8) & (fate < 0.9)
    pool = [i for i in range(vocab_size) if i not in special_ids]
    picks = torch.randint(0, len(pool), (int(random.sum()),), generator=generator)
    out[random] = torch.tensor(pool, dtype=ids.dtype)[picks]
    return out, torch.where(selected, ids, -100)


def bert_mask__loops(ids, special_ids, mask_id, vocab_size, p, generator):
    specials = set(special_ids)
    pool = [i for i in range(vocab_size) if i not in specials]
    input_ids = ids.clone()
    labels = torch.full_like(ids, -100)
    for row in range(ids.shape[0]):
        for col in range(ids.shape[1]):
            token = int(ids[row, col])
            if token in specials or torch.rand(1, generator=generator).item() >= p:
                continue
            labels[row, col] = token
            fate = torch.rand(1, generator=generator).item()
            if fate < 0.8:
                input_ids[row, col] = mask_id
            elif fate < 0.9:
                input_ids[row, col] = pool[int(torch.randint(len(pool), (1,), generator=generator))]
    return input_ids, labels


def bert_mask__bernoulli(ids, special_ids, mask_id, vocab_size, p, generator):
    """Hugging Face's collator: bernoulli draws, the rest halved, random words for every position."""
    labels = ids.clone()
    probability = torch.full(ids.shape, float(p))
    special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype))
    probability.masked_fill_(special, 0.0)
    selected = torch.bernoulli(probability, generator=generator).bool()
    labels[~selected] = -100
    inputs = ids.clone()
    replaced = torch.bernoulli(torch.full(ids.shape, 0.8), generator=generator).bool() & selected
    inputs[replaced] = mask_id
    random = torch.bernoulli(torch.full(ids.shape, 0.5), generator=generator).bool() & selected & ~replaced
    keep = torch.ones(vocab_size, dtype=torch.bool)
    keep[[s for s in special_ids if s < vocab_size]] = False
    pool = keep.nonzero().flatten()
    words = pool[torch.randint(len(pool), ids.shape, generator=generator)]
    inputs[random] = words[random]
    return inputs, labels


def bert_mask__rejection_sampling(ids, special_ids, mask_id, vocab_size, p, generator):
    specials = torch.tensor(special_ids)
    selected = (torch.rand(ids.shape, generator=generator) < p) & ~torch.isin(ids, specials)
    fate = torch.rand(ids.shape, generator=generator)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    words = torch.randint(0, vocab_size, ids.shape, generator=generator)
    while True:  # draw again wherever a special came out
        bad = random & torch.isin(words, specials)
        if not bad.any():
            break
        words[bad] = torch.randint(0, vocab_size, (int(bad.sum()),), generator=generator)
    input_ids = torch.where(selected & (fate < 0.8), torch.tensor(mask_id), ids)
    input_ids = torch.where(random, words, input_ids)
    labels = ids.masked_fill(~selected, -100)
    return input_ids, labels


def bert_mask__shifted_draw(ids, special_ids, mask_id, vocab_size, p, generator):
    """A draw in [0, vocab_size - #specials) moved past every special at or below it."""
    specials = sorted({s for s in special_ids if 0 <= s < vocab_size})
    selected = (torch.rand(ids.shape, generator=generator) < p) & ~torch.isin(ids, torch.tensor(special_ids))
    fate = torch.rand(ids.shape, generator=generator)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    draws = torch.randint(0, vocab_size - len(specials), (int(random.sum()),), generator=generator)
    for special in specials:
        draws = draws + (draws >= special).long()
    out = ids.clone()
    out[selected & (fate < 0.8)] = mask_id
    out[random] = draws
    return out, torch.where(selected, ids, torch.full_like(ids, -100))


def bert_mask__multinomial(ids, special_ids, mask_id, vocab_size, p, generator):
    weights = torch.ones(vocab_size)
    weights[[s for s in special_ids if s < vocab_size]] = 0.0
    eligible = ~torch.isin(ids, torch.tensor(special_ids))
    selected = eligible & (torch.rand(ids.shape, generator=generator) < p)
    fate = torch.rand(ids.shape, generator=generator)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    out = ids.masked_fill(selected & (fate < 0.8), mask_id)
    count = int(random.sum())
    if count:
        out[random] = torch.multinomial(weights, count, replacement=True, generator=generator)
    return out, ids.masked_fill(~selected, -100)


def bert_mask__one_uniform_rescaled(ids, special_ids, mask_id, vocab_size, p, generator):
    """One uniform u a position: u < p selects, and the fate is read from u / p (uniform on
    [0, 1) once u < p), so 0.8 and 0.9 of u / p are 0.8·p and 0.9·p of u."""
    special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype))
    u = torch.rand(ids.shape, generator=generator)
    selected = (u < p) & ~special
    masked = selected & (u < 0.8 * p)
    random = selected & (u >= 0.8 * p) & (u < 0.9 * p)
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)])
    out = ids.clone()
    out[masked] = mask_id
    out[random] = pool[torch.randint(0, len(pool), (int(random.sum()),), generator=generator)]
    return out, torch.where(selected, ids, torch.full_like(ids, -100))


def bert_mask__fates_first_categorical(ids, special_ids, mask_id, vocab_size, p, generator):
    """The fate of every position drawn first, as one of four outcomes with probabilities
    (0.8·p, 0.1·p, 0.1·p, 1 - p): multinomial over the categories, then the random words."""
    special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype))
    weights = torch.tensor([0.8 * p, 0.1 * p, 0.1 * p, 1.0 - p]).clamp(min=0.0)
    if ids.numel() == 0:
        return ids.clone(), ids.clone()
    fate = torch.multinomial(weights, ids.numel(), replacement=True, generator=generator).reshape(ids.shape)
    selected = (fate < 3) & ~special
    random = selected & (fate == 1)
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)])
    out = ids.masked_fill(selected & (fate == 0), mask_id)
    out[random] = pool[torch.randint(0, len(pool), (int(random.sum()),), generator=generator)]
    return out, ids.masked_fill(~selected, -100)


def bert_mask__row_by_row(ids, special_ids, mask_id, vocab_size, p, generator):
    """Each row masked by its own calls: selection, then fates, then words, row after row."""
    specials = torch.tensor(special_ids, dtype=ids.dtype)
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)])
    out, labels = ids.clone(), torch.full_like(ids, -100)
    for r in range(ids.shape[0]):
        row = ids[r]
        selected = (torch.rand(row.shape, generator=generator) < p) & ~torch.isin(row, specials)
        fate = torch.rand(row.shape, generator=generator)
        out[r][selected & (fate < 0.8)] = mask_id
        random = selected & (fate >= 0.8) & (fate < 0.9)
        out[r][random] = pool[torch.randint(0, len(pool), (int(random.sum()),), generator=generator)]
        labels[r][selected] = row[selected]
    return out, labels


def mask_content__one_uniform_rescaled(content, p, generator):
    ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
    u = torch.rand(ids.shape, generator=generator)
    selected = (u < p) & (ids >= 5)
    out = ids.clone()
    out[selected & (u < 0.8 * p)] = 4
    random = selected & (u >= 0.8 * p) & (u < 0.9 * p)
    out[random] = torch.randint(5, 10000, (int(random.sum()),), generator=generator)
    return out, torch.where(selected, ids, torch.full_like(ids, -100))


def mask_content__loops(content, p, generator):
    ids = [2, *content.tolist(), 3]
    out, labels = list(ids), [-100] * len(ids)
    for i in range(1, len(ids) - 1):
        if float(torch.rand((), generator=generator)) < p:
            labels[i] = ids[i]
            fate = float(torch.rand((), generator=generator))
            if fate < 0.8:
                out[i] = 4
            elif fate < 0.9:
                out[i] = int(torch.randint(5, 10000, (), generator=generator))
    return torch.tensor(out), torch.tensor(labels)


def whole_word_mask__one_uniform_rescaled(ids, word_ids, special_ids, mask_id, vocab_size, p, generator):
    """One uniform per word selects it (u < p); each piece's fate is its own draw."""
    words = int(word_ids.max()) + 1 if len(word_ids) else 1
    words = max(words, 1)
    word_u = torch.rand(words, generator=generator)
    fate = torch.rand(ids.shape, generator=generator)
    real = word_ids >= 0
    selected = real & (word_u[word_ids.clamp(min=0)] < p) & ~torch.isin(ids, torch.tensor(special_ids))
    out = ids.masked_fill(selected & (fate < 0.8), mask_id)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)])
    out[random] = pool[torch.randint(0, len(pool), (int(random.sum()),), generator=generator)]
    return out, ids.masked_fill(~selected, -100)


# -- 07 lesson_mlm_run ---------------------------------------------------------------------------------


def lesson_mlm_run__where(seed, p, batch, seq_len):
    g = torch.Generator().manual_seed(seed)
    original = torch.randint(5, 10000, (batch, seq_len), generator=g)
    selected = torch.rand((batch, seq_len), generator=g) < p
    fate = torch.rand((batch, seq_len), generator=g)
    input_ids = original.clone()
    for i, j in selected.nonzero().tolist():  # row-major, as the lesson's two loops
        if fate[i, j] < 0.8:
            input_ids[i, j] = 4
        elif fate[i, j] < 0.9:
            input_ids[i, j] = int(torch.randint(5, 10000, (1,), generator=g))
    return original, input_ids, torch.where(selected, original, torch.tensor(-100))


# -- 08 mask_content -------------------------------------------------------------------------------------


def mask_content__pad(content, p, generator):
    ids = F.pad(content, (1, 1), value=2)
    ids[-1] = 3
    inner = torch.zeros(ids.shape, dtype=torch.bool)
    inner[1:-1] = True
    selected = inner & torch.bernoulli(torch.full(ids.shape, float(p)), generator=generator).bool()
    fate = torch.bucketize(torch.rand(ids.shape, generator=generator), torch.tensor([0.8, 0.9]), right=True)
    out = ids.clone()
    out[selected & (fate == 0)] = 4
    random = selected & (fate == 1)
    out[random] = torch.randint(5, 10000, (int(random.sum()),), generator=generator)
    return out, torch.where(selected, ids, -100)


def mask_content__rejection_sampling(content, p, generator):
    ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
    labels = torch.full_like(ids, -100)
    out = ids.clone()
    for i in range(1, len(ids) - 1):
        if torch.rand((), generator=generator) < p:
            labels[i] = ids[i]
            u = float(torch.rand((), generator=generator))
            if u < 0.8:
                out[i] = 4
            elif u < 0.9:
                word = 0
                while word < 5:  # ids 0 to 4 are the specials: draw again
                    word = int(torch.randint(0, 10000, (), generator=generator))
                out[i] = word
    return out, labels


# -- 09 whole_word_mask ----------------------------------------------------------------------------------------


def whole_word_mask__one_draw_per_word(ids, word_ids, special_ids, mask_id, vocab_size, p, generator):
    words = sorted({int(w) for w in word_ids.tolist() if w >= 0})
    chosen_words = torch.rand(len(words), generator=generator) < p
    chosen = {word for word, keep in zip(words, chosen_words.tolist(), strict=True) if keep}
    selected = torch.tensor([int(w) in chosen for w in word_ids.tolist()], dtype=torch.bool)
    selected &= ~torch.isin(ids, torch.tensor(special_ids))
    fate = torch.rand(ids.shape, generator=generator)
    out = ids.clone()
    out[selected & (fate < 0.8)] = mask_id
    random = selected & (fate >= 0.8) & (fate < 0.9)
    pool = torch.tensor([i for i in range(vocab_size) if i not in special_ids])
    out[random] = pool[torch.randint(0, len(pool), (int(random.sum()),), generator=generator)]
    return out, torch.where(selected, ids, -100)


def whole_word_mask__bernoulli_gather(ids, word_ids, special_ids, mask_id, vocab_size, p, generator):
    first = torch.ones_like(word_ids, dtype=torch.bool)
    first[1:] = word_ids[1:] != word_ids[:-1]
    start_of = torch.cummax(torch.where(first, torch.arange(len(ids)), 0), dim=0).values
    coins = torch.bernoulli(torch.full(ids.shape, float(p)), generator=generator).bool()
    selected = coins[start_of] & (word_ids >= 0)
    fate = torch.rand(ids.shape, generator=generator)
    out = ids.masked_fill(selected & (fate < 0.8), mask_id)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    weights = torch.ones(vocab_size)
    weights[special_ids] = 0
    if random.any():
        out[random] = torch.multinomial(weights, int(random.sum()), replacement=True, generator=generator)
    return out, ids.masked_fill(~selected, -100)


# -- 10 causal_mask --------------------------------------------------------------------------------------------


def causal_mask__arange(n):
    positions = torch.arange(n)
    return positions.unsqueeze(0) > positions.unsqueeze(1)


def causal_mask__not_tril(n):
    return ~torch.tril(torch.ones(n, n)).bool()


def causal_mask__lists(n):
    return torch.tensor([[k > q for k in range(n)] for q in range(n)], dtype=torch.bool)


# -- 11 padded_causal_mask --------------------------------------------------------------------------------------


def padded_causal_mask__loops(attention_mask):
    b, n = attention_mask.shape
    mask = torch.zeros(b, n, n, dtype=torch.bool)
    for row in range(b):
        for q in range(n):
            for k in range(n):
                mask[row, q, k] = k > q or attention_mask[row, k] == 0
    return mask


def padded_causal_mask__logical_or(attention_mask):
    n = attention_mask.shape[-1]
    future = torch.ones(n, n).triu(1).bool()
    padding = attention_mask.eq(0).unsqueeze(1).expand(-1, n, -1)
    return torch.logical_or(future.unsqueeze(0), padding)


# -- 12 span_corrupt -----------------------------------------------------------------------------------------------


def span_corrupt__noise_mask(ids, spans, sentinel_ids, eos_id):
    noise = torch.zeros(len(ids), dtype=torch.bool)
    for start, end in spans:
        noise[start:end] = True
    inputs, targets, k = [], [], 0
    previous = False
    for token, hidden in zip(ids.tolist(), noise.tolist(), strict=True):
        if hidden and not previous:
            inputs.append(sentinel_ids[k])
            targets.append(sentinel_ids[k])
            k += 1
        if hidden:
            targets.append(token)
        else:
            inputs.append(token)
        previous = hidden
    if not noise.any() or not bool(noise[-1]):
        targets.append(sentinel_ids[k])  # kept text follows the last span
    return torch.tensor([*inputs, eos_id]), torch.tensor([*targets, eos_id])


def span_corrupt__narrow(ids, spans, sentinel_ids, eos_id):
    merged = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        elif end > start:
            merged.append((start, end))
    pieces_in, pieces_out, kept_from = [], [], 0
    for k, (start, end) in enumerate(merged):
        pieces_in += [ids.narrow(0, kept_from, start - kept_from), torch.tensor([sentinel_ids[k]])]
        pieces_out += [torch.tensor([sentinel_ids[k]]), ids.narrow(0, start, end - start)]
        kept_from = end
    pieces_in.append(ids.narrow(0, kept_from, len(ids) - kept_from))
    if kept_from < len(ids):
        pieces_out.append(torch.tensor([sentinel_ids[len(merged)]]))
    eos = torch.tensor([eos_id])
    return torch.cat([*pieces_in, eos]).long(), torch.cat([*pieces_out, eos]).long()


# -- 13 prefix_lm_mask ----------------------------------------------------------------------------------------------


def prefix_lm_mask__open_the_prefix(n, prefix_len):
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    mask[:, :prefix_len] = False
    return mask


def prefix_lm_mask__loops(n, prefix_len):
    return torch.tensor(
        [[not (k <= q or k < prefix_len) for k in range(n)] for q in range(n)], dtype=torch.bool
    )


# -- the learner's files ------------------------------------------------------------------------------------------------

HEADER = "import torch\nimport torch.nn.functional as F\n\n\n"


def variant_source(function) -> str:
    """The file a learner would hand in: the imports and the function under the task's name."""
    task = function.__name__.split("__", 1)[0]
    body = inspect.getsource(function).replace(f"def {function.__name__}(", f"def {task}(", 1)
    return HEADER + body


VARIANTS = tuple(
    value
    for name, value in sorted(globals().items())
    if callable(value) and "__" in name and not name.startswith("_") and inspect.isfunction(value)
)
