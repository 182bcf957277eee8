import torch


def lesson_mlm_run(seed: int, p: float, batch: int, seq_len: int) -> tuple:
    # TODO: your code here
    raise NotImplementedError("lesson_mlm_run: not written yet")
