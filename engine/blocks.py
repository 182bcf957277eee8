"""Blocks of rows small enough that torch works on each one on the calling thread.

torch hands an operation to its intra-op thread pool once a tensor holds GRAIN_SIZE
(32,768) elements. The masking functions' work is integer bookkeeping on one batch
(a few arithmetic operations per token), which a second thread barely speeds up on an
idle machine and slows badly on a shared one (a class server, or 2 cores for 8 people):
every pooled operation waits for a core to wake the pool's other thread. Measured on a
128x512 batch at load 9-16, T5 span corruption took a median 50-460 ms with the pool
and 15-40 ms without it (issue 22). So engine.spans and engine.mlm draw their random
numbers for the whole batch first, then work through the rows in these blocks: the same
results, since every step after the draws is row by row, and no pool. torch's own
thread setting is left alone (it is process-wide; the training lab sets it).
"""

from __future__ import annotations

import itertools

import torch

SERIAL_ELEMENTS = 32_768  # torch's at::internal::GRAIN_SIZE: below it an operation stays on one thread


def row_blocks(rows: int, width: int) -> list[slice]:
    """Slices of ``rows`` rows, each block under SERIAL_ELEMENTS when a row is ``width``
    wide, as even as possible (128 rows of 512 give 43 + 43 + 42). One block when torch
    runs on one thread anyway (the blocks would only add their joining), and for no rows."""
    if torch.get_num_threads() == 1:
        return [slice(0, rows)]
    per_block = max(1, (SERIAL_ELEMENTS - 1) // max(width, 1))
    count = max(1, -(-rows // per_block))
    size, longer = divmod(rows, count)  # the first `longer` blocks take one row more
    bounds = [block * size + min(block, longer) for block in range(count + 1)]
    return [slice(start, stop) for start, stop in itertools.pairwise(bounds)]
