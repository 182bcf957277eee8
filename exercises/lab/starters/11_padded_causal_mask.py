import torch


def padded_causal_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    # TODO: your code here
    raise NotImplementedError("padded_causal_mask: not written yet")
