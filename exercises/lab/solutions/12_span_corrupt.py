import torch


def span_corrupt(
    ids: torch.Tensor, spans: list[tuple[int, int]], sentinel_ids: list[int], eos_id: int
) -> tuple[torch.Tensor, torch.Tensor]:
    merged = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    tokens = ids.tolist()
    inputs, targets, kept_from = [], [], 0
    for k, (start, end) in enumerate(merged):
        inputs += tokens[kept_from:start] + [sentinel_ids[k]]
        targets += [sentinel_ids[k]] + tokens[start:end]
        kept_from = end
    inputs += tokens[kept_from:]
    if kept_from < len(tokens):
        targets.append(sentinel_ids[len(merged)])
    return torch.tensor(inputs + [eos_id]), torch.tensor(targets + [eos_id])
