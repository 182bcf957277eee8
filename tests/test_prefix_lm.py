import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from engine.clm import IGNORE_INDEX
from engine.errors import InvalidInput
from engine.masks import prefix_mask
from engine.prefix_lm import prefix_lm_sample


@given(st.integers(2, 300), st.data())
def test_loss_only_on_the_continuation_and_no_label_is_visible(n, data):
    prefix = data.draw(st.integers(0, n - 1))
    ids = torch.arange(10, 10 + n)
    sample = prefix_lm_sample(ids, prefix)
    assert torch.equal(sample.inputs, ids[:-1])
    assert torch.equal(sample.mask, prefix_mask(n - 1, prefix))
    for t, label in enumerate(sample.labels.tolist()):
        if t + 1 < prefix:
            assert label == IGNORE_INDEX
        else:
            assert label == ids[t + 1]
            # the token a counted position predicts is never among the keys it may see
            visible = (~sample.mask[t]).nonzero().flatten().tolist()
            assert t + 1 not in visible


def test_prefix_must_leave_a_token_to_predict():
    with pytest.raises(InvalidInput):
        prefix_lm_sample(torch.arange(5), 5)
    with pytest.raises(InvalidInput):
        prefix_lm_sample(torch.arange(1), 0)
