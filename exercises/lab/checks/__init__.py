"""Each task's rules, checked as properties of the learner's function.

The learner's function runs in the sandbox; everything here runs in the trusted
process. For each task hypothesis searches its inputs (token ids, lengths,
special-token sets, probabilities, seeds) for one that breaks a rule, and shrinks
it to the smallest such input; the first rule it breaks is reported with that
input, the learner's output and what the rule requires, the rule in words and,
where one fits, the misconception code of ``exercises.grading.diagnoses``.
Statistical rules (the 15 %, the 80/10/10, the replacement's distribution) are
exact binomial tests (``exercises.lab.stats``). The search is derandomised: the
same file gets the same counterexample every time.

Every call goes through a small function appended to a copy of the learner's
file (``core.probe_source``): it calls theirs and sends back the arguments as
they are afterwards, so a function that changes its inputs in place is seen, and
(for the loss) the gradient of the result with respect to the logits, as plain
numbers that this process compares with the reference gradient: nothing the child
says about itself (a flag, a shape, "same draws") is trusted unless re-derived here
from plain data. Every numeric comparison refuses NaN and ±inf (``core.close``).

One module per job:

core.py        rules, failures, showing values, the probe and calls, the search,
               the rules every task shares (inputs unchanged, the generator)
masks.py       causal_mask, prefix_lm_mask, padded_causal_mask
clm.py         clm_shift, loss_side_pairs, clm_loss, lesson_clm_run
masking.py     BERT's masking rules read from one output (judge_mlm)
statistics.py  the MLM tasks' exact binomial tests
mlm.py         bert_mask, lesson_mlm_run, mask_content, whole_word_mask
spans.py       span_corrupt (and T5's own functions, transcribed)
samples.py     three_samples
runner.py      CHECKERS and run_check: one file's whole check
"""

from exercises.lab.checks.core import Failure, LabResult, Rule, judge_output
from exercises.lab.checks.runner import CHECKERS, diagnosis_text, run_check

__all__ = ["CHECKERS", "Failure", "LabResult", "Rule", "diagnosis_text", "judge_output", "run_check"]
