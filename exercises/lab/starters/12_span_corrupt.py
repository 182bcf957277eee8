import torch


def span_corrupt(
    ids: torch.Tensor, spans: list[tuple[int, int]], sentinel_ids: list[int], eos_id: int
) -> tuple[torch.Tensor, torch.Tensor]:
    # TODO: your code here
    raise NotImplementedError("span_corrupt: not written yet")
