import torch


def clm_shift(tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # TODO: your code here
    raise NotImplementedError("clm_shift: not written yet")
