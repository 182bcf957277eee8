import torch
import torch.nn.functional as F


def lesson_clm_run(seed: int, batch: int, seq_len: int) -> tuple:
    hidden_dim, vocab_size = 64, 10000
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(0, vocab_size, (batch, seq_len), generator=g)
    projection = torch.randn(hidden_dim, vocab_size, generator=g) / hidden_dim**0.5
    hidden = torch.randn(batch, seq_len, hidden_dim, generator=g)
    logits = hidden @ projection
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, vocab_size), input_ids[:, 1:].reshape(-1))
    mask = torch.triu(torch.ones(seq_len, seq_len), diagonal=1).bool()
    return input_ids, loss.item(), mask
