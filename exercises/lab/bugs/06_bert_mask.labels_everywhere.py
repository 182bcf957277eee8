import torch


def bert_mask(
    ids: torch.Tensor,
    special_ids: list[int],
    mask_id: int,
    vocab_size: int,
    p: float,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype))
    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special
    fate = torch.rand(ids.shape, generator=generator)
    masked = selected & (fate < 0.8)
    randomised = selected & (fate >= 0.8) & (fate < 0.9)
    input_ids = ids.clone()
    input_ids[masked] = mask_id
    pool = torch.tensor([i for i in range(vocab_size) if i not in set(special_ids)], dtype=ids.dtype)
    draws = torch.randint(0, len(pool), (int(randomised.sum()),), generator=generator)
    input_ids[randomised] = pool[draws]
    labels = ids.clone()
    return input_ids, labels
