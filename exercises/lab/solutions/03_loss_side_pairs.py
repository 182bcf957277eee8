import torch


def loss_side_pairs(logits: torch.Tensor, input_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    labels = input_ids
    return logits[:, :-1, :], labels[:, 1:]
