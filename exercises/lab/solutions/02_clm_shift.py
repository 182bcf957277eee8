import torch


def clm_shift(tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return tokens[..., :-1], tokens[..., 1:]
