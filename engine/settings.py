"""The objectives' published settings, stated once: BERT's masking (Devlin et al. 2019,
section 3.1) and T5's span corruption (Raffel et al. 2020). Plain numbers and no torch,
so the exercises, the command line's defaults and the app's first frame read them
without loading the engine; engine.mlm and engine.spans use them as their defaults."""

from __future__ import annotations

MASK_RATE = 0.15  # BERT: the fraction of (non-special) tokens selected for prediction
BERT_SPLIT = (0.8, 0.1, 0.1)  # BERT: a selected token becomes [MASK], a random token, or itself

NOISE_DENSITY = 0.15  # T5: the fraction of tokens corrupted
MEAN_SPAN = 3.0  # T5: the mean length of a corrupted span
