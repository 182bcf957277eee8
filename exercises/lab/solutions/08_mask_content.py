import torch


def mask_content(
    content: torch.Tensor, p: float, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
    special = ids < 5
    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special
    fate = torch.rand(ids.shape, generator=generator)
    input_ids = ids.clone()
    input_ids[selected & (fate < 0.8)] = 4
    randomised = selected & (fate >= 0.8) & (fate < 0.9)
    input_ids[randomised] = torch.randint(5, 10000, (int(randomised.sum()),), generator=generator)
    labels = torch.where(selected, ids, torch.full_like(ids, -100))
    return input_ids, labels
