import torch


def bert_mask(
    ids: torch.Tensor,
    special_ids: list[int],
    mask_id: int,
    vocab_size: int,
    p: float,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    # TODO: your code here
    raise NotImplementedError("bert_mask: not written yet")
