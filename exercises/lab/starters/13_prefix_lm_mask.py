import torch


def prefix_lm_mask(n: int, prefix_len: int) -> torch.Tensor:
    # TODO: your code here
    raise NotImplementedError("prefix_lm_mask: not written yet")
