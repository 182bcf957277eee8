import torch


def padded_causal_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    length = attention_mask.shape[1]
    causal = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)
    key_is_padding = (attention_mask == 0)[:, None, :]
    return causal[None, :, :] | key_is_padding
