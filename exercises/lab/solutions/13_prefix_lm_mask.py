import torch


def prefix_lm_mask(n: int, prefix_len: int) -> torch.Tensor:
    query = torch.arange(n)[:, None]
    key = torch.arange(n)[None, :]
    allowed = (key <= query) | (key < prefix_len)
    return ~allowed
