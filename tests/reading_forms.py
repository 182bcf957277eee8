"""The forms real people write, per reader: what learners typed (or would paste from the
lessons' code) and what each must be read as. The tests iterate these lists; a form that
a reader gets wrong is added here with its reading, so it stays read.

Each list holds (text, arguments, reading); ``None`` as the reading means "not read"
(the answer is invalid, never wrong): a reader must not guess.
"""

from __future__ import annotations

ABCDE = ["A", "B", "C", "D", "E"]

# parsing.choice(text, 4): which option (0-based) a learner chose.
CHOICE = [
    # Chinese phrasing around the letter (issue 24: "选项B。", "选B", "答案是 B")
    ("选项B。", 1),
    ("选B", 1),
    ("答案是 B", 1),
    ("我选B", 1),
    ("我选择 B。", 1),
    ("B选项", 1),
    ("选 B 吧", 1),
    ("应该选 B", 1),
    ("答案应该是B", 1),
    ("正确答案：B", 1),
    ("正确答案是（B）", 1),
    ("答：B", 1),
    ("B 是对的", 1),
    ("选择：Ｂ", 1),
    ("Ｂ", 1),
    ("「B」", 1),
    ("【b】", 1),
    # English phrasing
    ("the answer is B", 1),
    ("The answer is (b).", 1),
    ("I'd pick B", 1),
    ("I choose B", 1),
    ("option B", 1),
    ("Choice: B", 1),
    ("B is correct", 1),
    ("my answer: B", 1),
    ("B)", 1),
    ("b.", 1),
    ("B, because fine-tuning never sees [MASK]", 1),
    ("B，因为微调时没有 [MASK]", 1),
    # what names no single option: never guessed
    ("不是B", None),
    ("B不对", None),
    ("not B", None),
    ("B or C", None),
    ("B和C", None),
    ("BC", None),
    ("选B还是C", None),
    ("A B", None),
    ("G", None),
    ("除了B都对", None),
    ("B 错", None),
]

# parsing.choice(text, 3, OPTIONS_80_10_10): an option's text typed instead of its letter.
OPTIONS_80_10_10 = [
    "[MASK] never appears in fine-tuning: a mismatch to narrow",
    "fewer tokens then enter the loss, which saves compute",
    "random words add noise, a regulariser like dropout",
]
OPTION_TEXT = [
    ("[MASK] never appears in fine-tuning: a mismatch to narrow", 0),
    ("[mask] never appears in fine-tuning — a mismatch to narrow.", 0),
    ("I choose: random words add noise, a regulariser like dropout", 2),
    ("A) [MASK] never appears in fine-tuning", 0),  # the letter, and its own text
    ("C) [MASK] never appears in fine-tuning", None),  # the letter and the text disagree
    ("not: [MASK] never appears in fine-tuning: a mismatch to narrow", None),
    # a fragment is no option (issue 24: "inf" scored 1.0)
    ("inf", None),
    ("fine", None),
    ("the loss", None),
    ("dropout", None),
    ("mismatch", None),
]

# parsing.positions(text, tokens, n): positions, named as numbers, ranges, words or tokens.
POSITIONS = [
    # no position: as the figures print an empty set (the engine's own answer must read back)
    ("-", (ABCDE, 5), []),
    ("—", (ABCDE, 5), []),
    ("none", (ABCDE, 5), []),
    # spaced Chinese conjunctions between token names (issue 24: "B 和 E", like "B和E")
    ("B 和 E", (ABCDE, 5), [1, 4]),
    ("B和E", (ABCDE, 5), [1, 4]),
    ("B 与 E", (ABCDE, 5), [1, 4]),
    ("B 及 E", (ABCDE, 5), [1, 4]),
    ("B 以及 E", (ABCDE, 5), [1, 4]),
    ("B 跟 E", (ABCDE, 5), [1, 4]),
    ("B、E", (ABCDE, 5), [1, 4]),
    ("B，E", (ABCDE, 5), [1, 4]),
    ("B and E", (ABCDE, 5), [1, 4]),
    ("B & E", (ABCDE, 5), [1, 4]),
    ("B, E 和 C", (ABCDE, 5), [1, 2, 4]),
    ("1 和 4", (ABCDE, 5), [1, 4]),
    ("位置 1 和 位置 4", (ABCDE, 5), [1, 4]),
    ("１，４", (ABCDE, 5), [1, 4]),
    # what the lessons' code prints (issue 24: pasted tensors and lists)
    ("tensor([1, 4])", (ABCDE, 5), [1, 4]),
    ("tensor([1, 4], dtype=torch.int32)", (ABCDE, 5), [1, 4]),
    ("array([1, 4])", (ABCDE, 5), [1, 4]),
    ("array([1, 4], dtype=int64)", (ABCDE, 5), [1, 4]),
    ("[1, 4]", (ABCDE, 5), [1, 4]),
    ("loss positions: tensor([1, 4])", (ABCDE, 5), [1, 4]),
    ("位置 2: [0, 1, 2]", (None, 6), [0, 1, 2]),
    # "all" said in words (issue 24: mlm-abcde's "all positions", "every position")
    ("all positions", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("every position", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("所有位置", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("全部位置都参与", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("所有位置都要计算损失", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("all of them", (ABCDE, 5), [0, 1, 2, 3, 4]),
    ("除了最后一个都参与", (ABCDE, 5), None),  # what is left out cannot be placed: not guessed
    # what is not a list of positions
    ("B 或 E", (ABCDE, 5), None),
    ("tensor([1, 4], dtype=torch.int64, requires_grad=True)", (ABCDE, 5), [1, 4]),
]

# parsing.labels(text, length): labels at positions.
LABELS = [
    ("B at 1, E at 4", 5, {1: "B", 4: "E"}),
    ("B at position 1 and E at position 4", 5, {1: "B", 4: "E"}),
    ("B at 1 and E at 4.", 5, {1: "B", 4: "E"}),
    ("B 在位置 1，E 在位置 4", 5, {1: "B", 4: "E"}),
    ("B在1，E在4", 5, {1: "B", 4: "E"}),
    ("1: B, 4: E", 5, {1: "B", 4: "E"}),
    ("masked labels : {2: 'learn', 5: 'large'}", 8, {2: "learn", 5: "large"}),
    ("[-100, 'B', -100, -100, 'E']", 5, {1: "B", 4: "E"}),
    # a whole label row: a label on every position (issue 24: the exercise's misconception, read)
    ("A B C D E", 5, {0: "A", 1: "B", 2: "C", 3: "D", 4: "E"}),
    ("[A, B, C, D, E]", 5, {0: "A", 1: "B", 2: "C", 3: "D", 4: "E"}),
    ("A，B，C，D，E", 5, {0: "A", 1: "B", 2: "C", 3: "D", 4: "E"}),
    ("A B C D", 5, None),  # a row of the wrong length: no reading
    ("1 2 3 4 5", 5, None),  # numbers are positions, not labels
    # a row of pieces that label nothing is no row of labels: never a misconception (issue 24)
    ("答案是 B", 4, None),  # four pieces on a four-token question (A B C D)
    ("所有位置", 4, None),
    ("[[0, 1], [0, 0]]", 4, None),  # a matrix pasted in the wrong box
    ("0:，A,，2:，C", 4, None),
    ("-101 B C D", 4, None),  # a slip of -100 is no label on position 0
]

# parsing.matrix(text, 4): the causal mask, written or pasted as the lessons' code prints it.
CAUSAL_4 = [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
MATRIX = [
    (
        "tensor([[False,  True,  True,  True],\n        [False, False,  True,  True],\n"
        "        [False, False, False,  True],\n        [False, False, False, False]])",
        CAUSAL_4,
    ),
    (
        "tensor([[0., 1., 1., 1.],\n        [0., 0., 1., 1.],\n        [0., 0., 0., 1.],\n"
        "        [0., 0., 0., 0.]])",
        CAUSAL_4,
    ),
    (  # an additive mask: -inf where blocked
        "tensor([[0., -inf, -inf, -inf],\n        [0., 0., -inf, -inf],\n        [0., 0., 0., -inf],\n"
        "        [0., 0., 0., 0.]])",
        CAUSAL_4,
    ),
    ("array([[0, 1, 1, 1],\n       [0, 0, 1, 1],\n       [0, 0, 0, 1],\n       [0, 0, 0, 0]])", CAUSAL_4),
    ("[[0 1 1 1]\n [0 0 1 1]\n [0 0 0 1]\n [0 0 0 0]]", CAUSAL_4),  # print(np_array)
    ("[[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]", CAUSAL_4),
    ("tensor([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]], dtype=torch.int32)", CAUSAL_4),
    ("mask = tensor([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]])", CAUSAL_4),
    ("0111;0011;0001;0000", CAUSAL_4),
    ("[[0, 1], [0, 0]]", None),  # a 2×2 matrix is not the 4×4 asked
]

# three_masks.bits(text, 4): one digit per position.
BITS = [
    ("tensor([1, 1, 1, 0])", [1, 1, 1, 0]),
    ("tensor([[1, 1, 1, 0]])", [1, 1, 1, 0]),  # a batch of one, as Hugging Face returns it
    ("tensor([ True,  True,  True, False])", [1, 1, 1, 0]),
    ("array([1, 1, 1, 0])", [1, 1, 1, 0]),
    ("attention_mask: [1, 1, 1, 0]", [1, 1, 1, 0]),
    ("1，1，1，0", [1, 1, 1, 0]),
]

# parsing.number(text): one number, pasted as torch and numpy print it.
NUMBERS = [
    ("tensor(9.2103)", 9.2103),
    ("np.float64(9.210340371976184)", 9.210340371976184),
    ("loss: tensor(9.2103)", 9.2103),
    ("tensor(9.2103, grad_fn=<NllLossBackward0>)", 9.2103),
]

# span-corruption's reader: T5's tokens as learners write them (the paper's <X>, <Y>, <Z>).
SPAN_TOKENS = [
    ("<X> learn patterns from <Y>", ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>"]),
    (
        "<X> learn patterns from <Y> </s>",
        ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>", "</s>"],
    ),
    (
        "transformer models <X> large text corpora",
        ["transformer", "models", "<extra_id_0>", "large", "text", "corpora"],
    ),
    ("《X》 learn patterns from 《Y》", ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>"]),
    ("<x> a <y> b <z>", ["<extra_id_0>", "a", "<extra_id_1>", "b", "<extra_id_2>"]),
]

# How many decimals a learner wrote (precision is told, never a misconception: issue 23, 6).
DECIMALS = [
    ("8.5", 1),
    ("8.52", 2),
    ("９．５", 1),
    ("约 8.5", 1),
    ("9", 0),
    ("ln 5000", None),  # exact: no precision to speak of
    ("8,5", 1),
]
