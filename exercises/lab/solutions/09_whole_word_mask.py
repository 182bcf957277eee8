import torch


def whole_word_mask(
    ids: torch.Tensor,
    word_ids: torch.Tensor,
    special_ids: list[int],
    mask_id: int,
    vocab_size: int,
    p: float,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    draws = torch.rand(ids.shape, generator=generator)
    fate = torch.rand(ids.shape, generator=generator)
    selected = torch.zeros(ids.shape, dtype=torch.bool)
    start = 0
    for i in range(len(ids)):  # a word's draw is the draw of its first piece
        if i == 0 or word_ids[i] != word_ids[i - 1] or word_ids[i] < 0:
            start = i
        selected[i] = bool(draws[start] < p) and int(word_ids[i]) >= 0 and int(ids[i]) not in special_ids
    input_ids = ids.clone()
    input_ids[selected & (fate < 0.8)] = mask_id
    randomised = selected & (fate >= 0.8) & (fate < 0.9)
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)], dtype=ids.dtype)
    input_ids[randomised] = pool[torch.randint(0, len(pool), (int(randomised.sum()),), generator=generator)]
    labels = torch.where(selected, ids, torch.full_like(ids, -100))
    return input_ids, labels
