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
    # TODO: your code here
    raise NotImplementedError("whole_word_mask: not written yet")
