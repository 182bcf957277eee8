"""Masked LM: bert_mask, the lesson's MLM run, [CLS] ... [SEP] with the content masked,
whole-word masking.
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st

from engine import mlm as engine_mlm
from engine import textbook as engine_textbook
from engine.settings import MASK_RATE
from exercises.lab.checks.clm import SAME_DRAWS
from exercises.lab.checks.core import (
    GENERATOR_USED,
    IGNORE,
    INPUTS_UNCHANGED,
    LONG_IDS,
    REPRODUCIBLE,
    SHAPE,
    Checker,
    Failure,
    Rule,
    Said,
    Unfit,
    batches_of,
    call,
    fixed_ints,
    generator_rules,
    pair,
    same,
    same_value,
    show,
    tensor,
)
from exercises.lab.checks.masking import (
    BERT_MASKING_RULES,
    LABEL_ORIGINAL,
    SELECTION_RATE,
    judge_mlm,
    probabilities,
    read_mlm,
    seeds,
)
from exercises.lab.checks.statistics import (
    SHORT_CALLS,
    StatCall,
    binomial_test,
    independence_test,
    rate_failure,
    second_rate_test,
    selection_test,
    short_rows_test,
    split_test,
    stat_call,
    uniform_test,
    upper_half_test,
)
from exercises.lab.sandbox import Generator, Sandbox
from exercises.text import Bilingual, L

# Small vocabularies for the split and the replacement's distribution: a random word is
# one of five ids, so each is seen hundreds of times (specials spread through the vocabulary).
FATES_VOCAB, FATES_SPECIALS, FATES_MASK = 10, [0, 3, 4, 6, 8], 4
FATES_POOL = [i for i in range(FATES_VOCAB) if i not in FATES_SPECIALS]
# The split is tested at a p below 1 (a fate read from the selection's own draw shows only
# there), which is also each task's second p for the selection rate.
FATES_P = 0.55


def fates_batch() -> torch.Tensor:
    """The ids of bert_mask's fates call: (60, 660), uniform over the small vocabulary's
    pool, about 10 % specials among them (about 21,800 selected at p = FATES_P)."""
    ids = torch.tensor(FATES_POOL)[fixed_ints(4248, (60, 660), 0, len(FATES_POOL))]
    return with_specials(ids, FATES_SPECIALS, 0.1, 4249)


def with_specials(ids: torch.Tensor, specials: list[int], share: float, seed: int) -> torch.Tensor:
    """``ids`` with about ``share`` of the positions replaced by specials (fixed seed)."""
    g = torch.Generator().manual_seed(seed)
    where = torch.rand(ids.shape, generator=g) < share
    picks = torch.tensor(specials)[torch.randint(0, len(specials), ids.shape, generator=g)]
    return torch.where(where, picks, ids)


SHORT_VOCAB = 1000  # the short calls' vocabulary: selection does not depend on it, a pool of it is cheap


def _short_row(g: torch.Generator, width: int) -> list[int]:
    """[CLS], 1 to 3 ordinary tokens, [SEP], then [PAD] up to ``width``."""
    n = int(torch.randint(1, 4, (1,), generator=g))
    tokens = torch.randint(5, SHORT_VOCAB, (n,), generator=g).tolist()
    return [2, *tokens, 3] + [0] * (width - n - 2)


def selection_rates(
    checker, box: Sandbox, report: list[dict], name: str, plan: StatCall, eligible, short, pairs
) -> Failure | None:
    """The selection steps every BERT-style masking function meets: on ``plan``'s large
    batch, the share of ``eligible`` positions given a label is p, and the selections are
    independent (``pairs(selected, p)``: the failure of the independence tests, or None);
    then, one short row a call (``short``: the plans, their counter and title), it is p
    there too."""
    got = stat_call(checker, box, plan)
    if isinstance(got, Failure):
        return got
    chosen, trials = int(((got[1] != IGNORE) & eligible).sum()), int(eligible.sum())
    failure = selection_test(report, name, chosen, trials, MASK_RATE, SELECTION_RATE, plan.title)
    # dependence first when both fail: a selection repeated over rows also spreads the
    # count (its rate test fails by chance), so the pairs are tested at the observed rate
    rate = MASK_RATE if failure is None else chosen / max(trials, 1)
    failure = pairs(got[1] != IGNORE, rate) or failure
    plans, count, title = short
    return failure or short_rows_test(checker, box, report, plans, MASK_RATE, count, title)


def neighbours(selected: torch.Tensor, eligible: torch.Tensor, where: Said, report: list[dict], p: float):
    """The independence test on disjoint neighbours (0, 1), (2, 3), ... of a 1-D selection."""
    n = (selected.shape[0] // 2) * 2
    a, b = selected[0:n:2], selected[1:n:2]
    both = eligible[0:n:2] & eligible[1:n:2]
    return independence_test(report, "independent neighbours", a, b, both, p, where)


def fates_test(
    report: list[dict], ids: torch.Tensor, got, mask_id: int, title: Bilingual, eligible: torch.Tensor
) -> Failure | None:
    """On the call at p = FATES_P: the selection rate at this second p (over ``eligible``),
    80/10/10 among the selected positions, then the 10 % random ones drawn uniformly over
    the small vocabulary."""
    input_ids, labels = got
    selected = labels != IGNORE
    chosen, trials = int((selected & eligible).sum()), int(eligible.sum())
    return (
        second_rate_test(report, chosen, trials, FATES_P, MASK_RATE, title)
        or split_test(report, ids, input_ids, selected, mask_id, len(FATES_POOL), title, FATES_P)
        or uniform_test(report, ids, input_ids, selected, mask_id, FATES_POOL, title)
    )


class BertMask(Checker):
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, REPRODUCIBLE, GENERATOR_USED, *BERT_MASKING_RULES)
    random = True

    def strategy(self):
        def build(vocab):
            specials = st.lists(
                st.integers(0, vocab - 2), min_size=1, max_size=min(4, vocab - 1), unique=True
            )
            return specials.flatmap(
                lambda sp: st.tuples(
                    st.just(vocab),
                    st.just(sorted(sp)),
                    st.sampled_from(sorted(sp)),
                    batches_of(st.integers(1, 3), st.integers(0, 10), st.integers(0, vocab - 1)),
                    probabilities(),
                    seeds(),
                )
            )

        return st.integers(3, 30).flatmap(build)

    def smoke(self):
        return (12, [0, 1, 2, 3, 4], 4, [[2, 5, 6, 7, 8, 9, 10, 11, 3]], 0.5, 0)

    def rich(self, seed: int):
        """A case where every random path is taken many times (generator_rules)."""
        return (30, [0, 3, 4], 4, fixed_ints(4246, (4, 30), 0, 30).tolist(), 0.5, seed)

    def args(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        ids = torch.tensor(rows, dtype=torch.long).reshape(len(rows), -1 if rows and rows[0] else 0)
        return (ids, list(specials), mask_id, vocab, p, Generator(seed))

    def describe(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        return f"ids = {rows}\nspecial_ids = {specials}, mask_id = {mask_id}\nvocab_size = {vocab}, p = {p}, seed = {seed}"

    def judge(self, case, out):
        vocab, specials, mask_id, _rows, p, _seed = case
        return judge_mlm(self, case, self.args(case)[0], out, set(specials), mask_id, vocab, p)

    def extra(self, box, result):
        failure = generator_rules(self, box, self.rich(99), self.rich(100))
        if failure:
            return failure
        # exactness: the engine's draw order gives the engine's values
        exact = True
        row = [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
        for case in (  # non-square both ways, several seeds and p: a draw order that differs shows
            self.smoke(),
            (30, [0, 3, 4], 4, [row] * 3, 0.6, 99),
            (30, [0, 3, 4], 4, [row[:2]] * 2, 1.0, 7),
            (30, [0, 3, 4], 4, [row[:3]] * 7, 1.0, 3),
            (30, [0, 3, 4], 4, [row] * 5, 0.5, 11),
            (30, [0, 3, 4], 4, [row[i:] + row[:i] for i in range(4)], MASK_RATE, 0),
        ):
            vocab, specials, mask_id, rows, p, seed = case
            ref = engine_mlm.mask_tokens(
                torch.tensor(rows),
                mask_id=mask_id,
                vocab_size=vocab,
                special_ids=specials,
                p=p,
                generator=torch.Generator().manual_seed(seed),
            )
            out = call(box, self, self.args(case)).out
            exact = exact and same_value(tuple(out), (ref.input_ids, ref.labels))
        result.exact = exact
        return self.statistics(box, result.statistics)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        g = torch.Generator().manual_seed(4242)
        vocab, mask_id, specials = 30000, 4, [0, 1, 2, 3, 4]
        ids = torch.randint(5, vocab, (200, 200), generator=g)
        ids[torch.rand(ids.shape, generator=g) < 0.1] = 0  # padding-like specials among the text
        plan = StatCall(
            (ids, specials, mask_id, vocab, MASK_RATE, Generator(12345)),
            ids,
            set(specials),
            mask_id,
            vocab,
            MASK_RATE,
            L(
                "a (200, 200) batch: ids in [5, 30000) and [PAD] (0), special_ids [0, 1, 2, 3, 4], mask_id 4, vocab_size 30000, p = 0.15, generator seed 12345",
                "一个 (200, 200) 的批次：id 取自 [5, 30000) 和 [PAD]（0），special_ids [0, 1, 2, 3, 4]，mask_id 4，vocab_size 30000，p = 0.15，generator 种子 12345",
            ),
        )
        g = torch.Generator().manual_seed(4247)
        plans = []
        for k in range(SHORT_CALLS):
            rows = torch.tensor([_short_row(g, 5)])  # one row a call: a fixed count per row or per call shows
            plans.append(((rows, specials, mask_id, SHORT_VOCAB, MASK_RATE, Generator(20000 + k)), (1, 5)))

        def count(args, labels):
            eligible = args[0] >= 5
            return int(((labels != IGNORE) & eligible).sum()), eligible.sum(dim=1).tolist()

        short_title = L(
            f"{SHORT_CALLS} calls, each on one row [CLS], 1 to 3 tokens, [SEP], [PAD]… (shape (1, 5)); special_ids [0, 1, 2, 3, 4], vocab_size {SHORT_VOCAB}, p = 0.15, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
            f"{SHORT_CALLS} 次调用，每次一行：[CLS]、1 到 3 个 token、[SEP]、[PAD]…（形状 (1, 5)）；special_ids [0, 1, 2, 3, 4]，vocab_size {SHORT_VOCAB}，p = 0.15，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
        )

        def pairs(selected: torch.Tensor, rate: float) -> Failure | None:
            eligible = ids >= 5
            rows = independence_test(  # rows 0 and 1, 2 and 3, ... at each column
                report,
                "independent rows",
                selected[0::2],
                selected[1::2],
                eligible[0::2] & eligible[1::2],
                rate,
                plan.title,
            )
            return (
                rows
                or independence_test(  # columns 0 and 1, 2 and 3, ... in each row
                    report,
                    "independent positions",
                    selected[:, 0::2],
                    selected[:, 1::2],
                    eligible[:, 0::2] & eligible[:, 1::2],
                    rate,
                    plan.title,
                )
            )

        failure = selection_rates(
            self, box, report, "selection", plan, ids >= 5, (plans, count, short_title), pairs
        )
        return failure or self.fates(box, report)

    def fates(self, box: Sandbox, report: list[dict]) -> Failure | None:
        ids = fates_batch()
        plan = StatCall(
            (ids, FATES_SPECIALS, FATES_MASK, FATES_VOCAB, FATES_P, Generator(12346)),
            ids,
            set(FATES_SPECIALS),
            FATES_MASK,
            FATES_VOCAB,
            FATES_P,
            L(
                f"a (60, 660) batch over a vocabulary of {FATES_VOCAB}: special_ids {FATES_SPECIALS}, mask_id {FATES_MASK}, p = {FATES_P}, generator seed 12346",
                f"词表大小为 {FATES_VOCAB} 的一个 (60, 660) 批次：special_ids {FATES_SPECIALS}，mask_id {FATES_MASK}，p = {FATES_P}，generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        eligible = ~torch.isin(ids, torch.tensor(FATES_SPECIALS))
        return fates_test(report, ids, got, FATES_MASK, plan.title, eligible)


class LessonMlmRun(Checker):
    SAME_SELECTION = Rule(
        "same-selection",
        L(
            "The selection is rand(shape, generator=g) < p, drawn right after the ids.",
            "选中与否是 rand(shape, generator=g) < p，紧跟在 id 之后抽。",
        ),
    )
    SAME_FATES = Rule(
        "same-fates",
        L(
            "Fates come from a second rand(shape); a random word is drawn in the loop, row by row, only for the 'random' fate.",
            "命运来自第二次 rand(shape)；随机词在循环里逐行、只在命运为“随机”时抽。",
        ),
    )
    rules = (SHAPE, LONG_IDS, REPRODUCIBLE, SAME_DRAWS, SAME_SELECTION, LABEL_ORIGINAL, SAME_FATES)
    random = True

    def strategy(self):
        return st.tuples(seeds(), probabilities(), st.integers(1, 4), st.integers(1, 8))

    def smoke(self):
        return (0, 0.3, 4, 8)

    def args(self, case):
        return case

    def describe(self, case):
        return "seed = {}, p = {}, batch = {}, seq_len = {}".format(*case)

    def judge(self, case, out):
        seed, p, batch, seq_len = case
        ref = engine_textbook.mlm_run(seed=seed, batch=batch, seq_len=seq_len, p=p)
        try:
            original, input_ids, labels = pair(out, ("original", "input_ids", "labels"))
            original = tensor(original, "original", (batch, seq_len))
            input_ids = tensor(input_ids, "input_ids", (batch, seq_len))
            labels = tensor(labels, "labels", (batch, seq_len))
        except Unfit as unfit:
            return self.unfit(case, unfit)
        if not torch.equal(original, ref.original_ids):
            return self.fail(
                SAME_DRAWS, case, f"original = {show(original)}", same(f"original = {show(ref.original_ids)}")
            )
        if not torch.equal(labels != IGNORE, ref.selected):
            return self.fail(
                self.SAME_SELECTION,
                case,
                f"labels = {show(labels)}",
                same(f"labels = {show(ref.labels)}"),
                "loss-includes-unselected"
                if bool((labels != IGNORE).all()) and not bool(ref.selected.all())
                else None,
            )
        if not torch.equal(labels, ref.labels):
            return self.fail(
                LABEL_ORIGINAL, case, f"labels = {show(labels)}", same(f"labels = {show(ref.labels)}")
            )
        if not torch.equal(input_ids, ref.input_ids):
            return self.fail(
                self.SAME_FATES,
                case,
                f"input_ids = {show(input_ids)}",
                same(f"input_ids = {show(ref.input_ids)}"),
            )
        return None

    # Cases where a wrong draw order shows: non-square shapes both ways, p = 1 (every
    # position selected, so a random fate in several rows and columns), several seeds and p.
    EXACT_CASES = tuple(
        (seed, p, batch, seq_len)
        for seed in (7, 0, 3)
        for p in (1.0, 0.5, MASK_RATE)
        for batch, seq_len in ((2, 2), (3, 7), (7, 3), (4, 16))
    )

    def extra(self, box, result):
        """Identical to the engine draw for draw only after a comparison that could fail:
        every EXACT_CASES case judged, the first one that differs reported."""
        for case in self.EXACT_CASES:
            failure = self.judge(case, call(box, self, self.args(case)).out)
            if failure is not None:
                return failure
        result.exact = True
        return None


CLS_SEP = Rule(
    "cls-sep-in-place",
    L(
        "The sequence is [CLS] (2), the content, then [SEP] (3): length L + 2.",
        "序列是 [CLS]（2）、内容、再 [SEP]（3）：长度 L + 2。",
    ),
)
LESSON_SPECIALS = [0, 1, 2, 3, 4]
LESSON_VOCAB = 10000


class MaskContent(Checker):
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, REPRODUCIBLE, GENERATOR_USED, CLS_SEP, *BERT_MASKING_RULES)
    random = True

    def strategy(self):
        return st.tuples(st.lists(st.integers(5, 9999), min_size=0, max_size=10), probabilities(), seeds())

    def smoke(self):
        return ([7715, 2736, 2941, 1766], 0.3, 0)

    def rich(self, seed: int):
        return (fixed_ints(4250, (300,), 5, LESSON_VOCAB).tolist(), 0.5, seed)

    def args(self, case):
        content, p, seed = case
        return (torch.tensor(content, dtype=torch.long), p, Generator(seed))

    def describe(self, case):
        content, p, seed = case
        return f"content = {content}\np = {p}, seed = {seed}"

    def judge(self, case, out):
        content, p, _seed = case
        ids = torch.tensor([2, *content, 3])
        try:
            input_ids, _labels = read_mlm(out, tuple(ids.shape))
        except Unfit as unfit:
            if "shape" in unfit.yours:
                return self.fail(CLS_SEP, case, unfit.yours, unfit.required)
            return self.unfit(case, unfit)
        if int(input_ids[0]) != 2 or int(input_ids[-1]) != 3:
            return self.fail(
                CLS_SEP,
                case,
                f"input_ids = {show(input_ids)}",
                same("input_ids[0] = 2, input_ids[-1] = 3"),
                "specials-selected",
            )
        return judge_mlm(self, case, ids, out, set(LESSON_SPECIALS), 4, LESSON_VOCAB, p)

    def extra(self, box, result):
        return generator_rules(self, box, self.rich(99), self.rich(100)) or self.statistics(
            box, result.statistics
        )

    def _plan(self, content: torch.Tensor, p: float, seed: int, title: Bilingual) -> StatCall:
        ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
        return StatCall((content, p, Generator(seed)), ids, set(LESSON_SPECIALS), 4, LESSON_VOCAB, p, title)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        content = fixed_ints(4243, (40000,), 5, LESSON_VOCAB)
        plan = self._plan(
            content,
            0.3,
            12345,
            L(
                "a content of 40000 ids in [5, 10000), p = 0.3, generator seed 12345",
                "长度 40000 的内容，id 取自 [5, 10000)，p = 0.3，generator 种子 12345",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        failure = selection_test(
            report,
            "selection",
            int((got[1][1:-1] != IGNORE).sum()),
            len(content),
            0.3,
            SELECTION_RATE,
            plan.title,
        )
        content_selected = got[1][1:-1] != IGNORE
        failure = failure or neighbours(
            content_selected, torch.ones_like(content_selected), plan.title, report, 0.3
        )
        if failure:
            return failure
        g = torch.Generator().manual_seed(4244)
        plans = []
        for k in range(SHORT_CALLS):
            n = int(torch.randint(1, 4, (1,), generator=g))
            short = torch.randint(5, LESSON_VOCAB, (n,), generator=g)
            plans.append(((short, 0.3, Generator(20000 + k)), (n + 2,)))

        def count(args, labels):
            return int((labels[1:-1] != IGNORE).sum()), [len(args[0])]

        def rescaled(per_call):  # p stretched by (L + 2) / L to make up for [CLS] and [SEP]
            rates = [(n, min(1.0, 0.3 * (n + 2) / n)) for units in per_call for n in units]
            mean = sum(n * q for n, q in rates)
            return [("p-rescaled", mean, math.sqrt(sum(n * q * (1 - q) for n, q in rates)))]

        failure = short_rows_test(
            self,
            box,
            report,
            plans,
            0.3,
            count,
            L(
                f"{SHORT_CALLS} calls on contents of 1 to 3 ids, p = 0.3, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
                f"{SHORT_CALLS} 次调用，内容长度 1 到 3，p = 0.3，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
            ),
            rescaled,
        )
        if failure:
            return failure
        # the fates at a second p below 1; originals in the lower half of the pool
        middle = (5 + LESSON_VOCAB) // 2
        content = fixed_ints(4245, (150000,), 5, middle)
        plan = self._plan(
            content,
            FATES_P,
            12346,
            L(
                f"a content of 150000 ids in [5, {middle}), p = {FATES_P}, generator seed 12346",
                f"长度 150000 的内容，id 取自 [5, {middle})，p = {FATES_P}，generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        input_ids, labels = got
        selected = labels != IGNORE
        return (
            second_rate_test(report, int(selected.sum()), len(content), FATES_P, 0.3, plan.title)
            or split_test(report, plan.ids, input_ids, selected, 4, LESSON_VOCAB - 5, plan.title, FATES_P)
            or upper_half_test(report, input_ids, selected, 5, LESSON_VOCAB, plan.title)
        )


WHOLE_WORDS = Rule(
    "whole-words",
    L(
        "All pieces of a word are selected together or not at all: their labels are all -100 or none is.",
        "一个词的所有子词要么一起被选中，要么都不选：它们的标签要么全是 -100，要么都不是。",
    ),
    "pieces-masked-separately",
)
WORD_FATES = Rule(
    "fate-per-piece",
    L(
        "Each selected piece gets its own fate: the pieces of one word are [MASK], random or unchanged independently (an exact binomial test on two-piece words).",
        "每个被选中的子词各自决定命运：同一个词的子词各自独立地变成 [MASK]、随机词或保持不变（在两个子词的词上做精确二项检验）。",
    ),
    "word-one-fate",
)


def _word_ids(lengths: list[int]) -> list[int]:
    words = [-1]
    for word, length in enumerate(lengths):
        words += [word] * length
    return [*words, -1]


def _first_pieces(words: torch.Tensor) -> torch.Tensor:
    previous = torch.cat([torch.tensor([-2]), words[:-1]])
    return (words >= 0) & (words != previous)


class WholeWordMask(Checker):
    # BERT's masking rules, the whole-word rule after the specials (the order a report lists them)
    rules = (
        SHAPE,
        LONG_IDS,
        INPUTS_UNCHANGED,
        REPRODUCIBLE,
        GENERATOR_USED,
        *BERT_MASKING_RULES[:2],
        WHOLE_WORDS,
        *BERT_MASKING_RULES[2:],
        WORD_FATES,
    )
    VOCAB, MASK, SPECIAL_IDS = 40, 4, [0, 1, 2, 3, 4]
    random = True

    def strategy(self):
        lengths = st.lists(st.integers(1, 3), min_size=0, max_size=5)
        return lengths.flatmap(
            lambda ls: st.tuples(
                st.just(ls),
                st.lists(st.integers(5, self.VOCAB - 1), min_size=sum(ls), max_size=sum(ls)),
                probabilities(),
                seeds(),
            )
        )

    def smoke(self):
        return ([2, 1, 3], [10, 11, 12, 13, 14, 15], 0.5, 0)

    def rich(self, seed: int):
        lengths = fixed_ints(4251, (60,), 1, 4).tolist()
        return (lengths, fixed_ints(4252, (sum(lengths),), 5, self.VOCAB).tolist(), 0.5, seed)

    def _inputs(self, case):
        lengths, pieces, _p, _seed = case
        return torch.tensor([2, *pieces, 3]), torch.tensor(_word_ids(lengths))

    def args(self, case):
        ids, words = self._inputs(case)
        return (ids, words, self.SPECIAL_IDS, self.MASK, self.VOCAB, case[2], Generator(case[3]))

    def describe(self, case):
        ids, words = self._inputs(case)
        return f"ids      = {ids.tolist()}\nword_ids = {words.tolist()}\nspecial_ids = {self.SPECIAL_IDS}, mask_id = 4, vocab_size = {self.VOCAB}, p = {case[2]}, seed = {case[3]}"

    def judge(self, case, out):
        ids, words = self._inputs(case)
        failure = judge_mlm(self, case, ids, out, set(self.SPECIAL_IDS), self.MASK, self.VOCAB, case[2])
        if failure is not None:
            return failure
        labels = out[1]
        selected = (labels != IGNORE).tolist()
        for word in set(words.tolist()) - {-1}:
            marks = {selected[i] for i, w in enumerate(words.tolist()) if w == word}
            if len(marks) > 1:
                pieces = [i for i, w in enumerate(words.tolist()) if w == word]
                return self.fail(
                    WHOLE_WORDS,
                    case,
                    f"labels = {show(labels)}",
                    same(f"positions {pieces} (word {word}): all labels -100, or all the original tokens"),
                )
        return None

    def extra(self, box, result):
        return generator_rules(self, box, self.rich(99), self.rich(100)) or self.statistics(
            box, result.statistics
        )

    def _plan(self, lengths: list[int], ids: torch.Tensor, specials, vocab, p, seed, title) -> StatCall:
        words = torch.tensor(_word_ids(lengths))
        args = (ids, words, list(specials), self.MASK, vocab, p, Generator(seed))
        return StatCall(args, ids, set(specials), self.MASK, vocab, p, title)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        g = torch.Generator().manual_seed(4244)
        lengths = torch.randint(1, 4, (20000,), generator=g).tolist()
        ids = torch.randint(5, 30000, (len(_word_ids(lengths)),), generator=g)
        ids[0], ids[-1] = 2, 3
        plan = self._plan(
            lengths,
            ids,
            self.SPECIAL_IDS,
            30000,
            MASK_RATE,
            12345,
            L(
                "20000 words of 1 to 3 pieces in [5, 30000) between [CLS] and [SEP], p = 0.15, generator seed 12345",
                "[CLS] 和 [SEP] 之间 20000 个词，每词 1 到 3 个子词，id 取自 [5, 30000)，p = 0.15，generator 种子 12345",
            ),
        )
        g = torch.Generator().manual_seed(4253)
        plans = []
        for k in range(SHORT_CALLS):
            short = torch.randint(1, 4, (int(torch.randint(1, 4, (1,), generator=g)),), generator=g).tolist()
            words = torch.tensor(_word_ids(short))
            pieces = torch.randint(5, SHORT_VOCAB, words.shape, generator=g)
            pieces[0], pieces[-1] = 2, 3
            args = (pieces, words, self.SPECIAL_IDS, self.MASK, SHORT_VOCAB, MASK_RATE, Generator(20000 + k))
            plans.append((args, tuple(pieces.shape)))

        def count(args, labels):
            first = _first_pieces(args[1])
            return int(((labels != IGNORE) & first).sum()), [int(first.sum())]

        short_title = L(
            f"{SHORT_CALLS} calls on 1 to 3 words of 1 to 3 pieces, p = 0.15, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
            f"{SHORT_CALLS} 次调用，每次 1 到 3 个词，每词 1 到 3 个子词，p = 0.15，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
        )
        first = _first_pieces(plan.args[1])

        def pairs(selected: torch.Tensor, rate: float) -> Failure | None:  # words 0 and 1, 2 and 3, ...
            words = selected[first]
            return neighbours(words, torch.ones_like(words), plan.title, report, rate)

        failure = selection_rates(
            self, box, report, "word selection", plan, first, (plans, count, short_title), pairs
        )
        return failure or self.fates(box, report)

    def fates(self, box: Sandbox, report: list[dict]) -> Failure | None:
        lengths = fixed_ints(4254, (5000,), 1, 4).tolist()
        size = len(_word_ids(lengths))
        ids = torch.tensor(FATES_POOL)[fixed_ints(4255, (size,), 0, len(FATES_POOL))]
        ids[0], ids[-1] = FATES_SPECIALS[0], FATES_SPECIALS[1]
        plan = self._plan(
            lengths,
            ids,
            FATES_SPECIALS,
            FATES_VOCAB,
            FATES_P,
            12346,
            L(
                f"5000 words of 1 to 3 pieces over a vocabulary of {FATES_VOCAB} (special_ids {FATES_SPECIALS}, mask_id {self.MASK}), p = {FATES_P}, generator seed 12346",
                f"词表大小为 {FATES_VOCAB} 的 5000 个词，每词 1 到 3 个子词（special_ids {FATES_SPECIALS}，mask_id {self.MASK}），p = {FATES_P}，generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        words = plan.args[1]
        first = _first_pieces(words)
        failure = fates_test(report, ids, got, self.MASK, plan.title, first)
        if failure is not None:
            return failure
        input_ids, selected = got[0], got[1] != IGNORE
        # the first two pieces of each selected word of two or more: exactly one of them [MASK]
        starts = (
            (first & selected & torch.cat([words[1:] == words[:-1], torch.tensor([False])]))
            .nonzero()
            .flatten()
        )
        masked = input_ids == self.MASK
        one = int((masked[starts] ^ masked[starts + 1]).sum())
        share = engine_mlm.BERT_SPLIT[0]
        if binomial_test(report, "one of two pieces [MASK]", one, len(starts), 2 * share * (1 - share)):
            return None
        what = L(
            "words whose two first pieces differ in being [MASK], as independent fates give",
            "前两个子词中恰好一个是 [MASK] 的词（各自独立决定命运时的比例）",
        )
        return rate_failure(WORD_FATES, plan.title, report[-1], what, WORD_FATES.diagnosis)
