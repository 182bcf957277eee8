import torch


def lesson_mlm_run(seed: int, p: float, batch: int, seq_len: int) -> tuple:
    g = torch.Generator().manual_seed(seed)
    original = torch.randint(5, 10000, (batch, seq_len), generator=g)
    selected = torch.rand(original.shape, generator=g) < p
    fate = torch.rand(original.shape, generator=g)
    input_ids = original.clone()
    labels = torch.full_like(original, -100)
    for i in range(batch):
        for j in range(seq_len):
            if selected[i, j]:
                if fate[i, j] < 0.8:
                    input_ids[i, j] = 4
                elif fate[i, j] < 0.9:
                    input_ids[i, j] = torch.randint(5, 10000, (1,), generator=g).item()
                labels[i, j] = original[i, j]
    return original, input_ids, labels
