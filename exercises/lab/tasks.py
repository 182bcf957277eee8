"""The code lab's tasks, in course order (torch-free: the app lists them before
the engine loads).

Each task is one function the learner writes in its own file. ``statement`` is
what the file's docstring says (both languages), ``hints`` the way in, ``exact``
says when the learner's output can be compared with the engine's value for value
(same generator, same draw order). The code is in real Python files, linted by
ruff and shipped as package data, named as the learner's: ``starters/`` holds
what is handed out (the imports, the signature, a body that does not work yet),
``solutions/`` the reference that passes every check. ``starter`` and
``solution`` put the statement in front of them as the docstring; the signature
is read from the starter (a test keeps the solution's the same).
"""

from __future__ import annotations

import ast
import functools
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from exercises.text import Bilingual, L

FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class Task:
    id: str
    number: int
    objective: str  # the lesson it belongs to (exercises.curriculum ids)
    function: str
    title: Bilingual
    statement: Bilingual
    hints: tuple[Bilingual, ...]
    exact: Bilingual | None = None

    @property
    def file_name(self) -> str:
        return f"{self.number:02d}_{self.id}.py"

    @property
    def signature(self) -> str:
        """The def line, with type hints, on one line (as a quiz's fingerprint of the task reads it)."""
        return _signature(self.file_name, self.function)


TASKS: tuple[Task, ...] = (
    Task(
        id="three_samples",
        number=1,
        objective="self-supervision",
        function="three_samples",
        title=L("Three samples of your own sentence", "用你自己的句子造三种样本"),
        statement=L(
            "Turn one tokenised sentence into the three training samples of “Pretraining methods”, exactly in the "
            "lesson's format:\n"
            "- causal LM: inputs = tokens[:-1], labels = tokens[1:];\n"
            "- masked LM: a copy with '[MASK]' at each of mask_positions, and labels = {position: original token};\n"
            "- span corruption (the lesson's simplified form): inputs = tokens[:start] + ['<extra_id_0>'] + "
            "tokens[end:], target = ['<extra_id_0>'] + tokens[start:end] + ['<extra_id_1>'].\n"
            "Return (causal_inputs, causal_labels, masked_inputs, masked_labels, span_inputs, span_target), "
            "lists of strings and a dict. Put your own sentence in MY_SENTENCE and run this file to see them.",
            "把一句分好词的句子改造成《预训练方法》的三种训练样本，格式与讲义完全一致：\n"
            "- 因果 LM：inputs = tokens[:-1]，labels = tokens[1:]；\n"
            "- 掩码 LM：复制一份，把 mask_positions 中每个位置换成 '[MASK]'，labels = {位置: 原词}；\n"
            "- 片段破坏（讲义的简化写法）：inputs = tokens[:start] + ['<extra_id_0>'] + tokens[end:]，"
            "target = ['<extra_id_0>'] + tokens[start:end] + ['<extra_id_1>']。\n"
            "返回 (causal_inputs, causal_labels, masked_inputs, masked_labels, span_inputs, span_target)，"
            "前后都是字符串列表，masked_labels 是字典。把你自己的句子写进 MY_SENTENCE，运行本文件就能看到结果。",
        ),
        hints=(
            L(
                "Slicing does all of causal LM: tokens[:-1] and tokens[1:].",
                "因果 LM 全靠切片：tokens[:-1] 和 tokens[1:]。",
            ),
            L(
                "Copy the list before writing [MASK] into it, or you change the caller's tokens.",
                "先复制列表再写 [MASK]，否则会改掉调用者的 tokens。",
            ),
            L(
                "tokens[start:end] excludes end, as in Python.",
                "tokens[start:end] 不含 end，和 Python 一样。",
            ),
        ),
        exact=L(
            "Compared with `objectives-tutor textbook three-samples` value for value.",
            "与 `objectives-tutor textbook three-samples` 逐项比较。",
        ),
    ),
    Task(
        id="clm_shift",
        number=2,
        objective="clm",
        function="clm_shift",
        title=L("Causal LM, data side: inputs and labels", "因果 LM（数据侧）：输入与标签"),
        statement=L(
            "The data-side layout (“Pretraining methods”): position t is trained to predict token t+1, so\n"
            "inputs = tokens[..., :-1] and labels = tokens[..., 1:].\n"
            "tokens is a LongTensor of shape (L,) or (B, L) with L >= 2; return (inputs, labels), "
            "both of the same shape (..., L-1).",
            "数据侧的排法（《预训练方法》）：位置 t 学习预测位置 t+1 上的 token，所以\n"
            "inputs = tokens[..., :-1]，labels = tokens[..., 1:]。\n"
            "tokens 是形状为 (L,) 或 (B, L) 的 LongTensor，L >= 2；返回 (inputs, labels)，形状都是 (..., L-1)。",
        ),
        hints=(
            L(
                "The ellipsis `...` keeps every leading dimension: one slice works for (L,) and (B, L).",
                "省略号 `...` 保留前面所有维度：同一个切片对 (L,) 和 (B, L) 都适用。",
            ),
            L(
                "The last token is never an input: nothing comes after it.",
                "最后一个 token 不作输入：它后面没有要预测的词。",
            ),
        ),
        exact=L("Compared with the engine's shift value for value.", "与引擎的移位结果逐项比较。"),
    ),
    Task(
        id="loss_side_pairs",
        number=3,
        objective="clm",
        function="loss_side_pairs",
        title=L(
            "Causal LM, loss side: which logits meet which labels",
            "因果 LM（损失侧）：哪些 logits 对哪些标签",
        ),
        statement=L(
            "The loss-side layout (“Self-supervision and LM objectives”, Hugging Face): the model reads all L tokens, labels = input_ids, "
            "and the loss pairs the logits of position t with the label of position t+1.\n"
            "logits: (B, L, V) floats, input_ids: (B, L). Return (shifted_logits, shifted_labels) of shapes "
            "(B, L-1, V) and (B, L-1): exactly the two tensors cross-entropy compares.",
            "损失侧的排法（《自监督与语言建模目标》、Hugging Face）：模型读入全部 L 个 token，labels = input_ids，"
            "计算损失时位置 t 的 logits 与位置 t+1 的标签配对。\n"
            "logits 形状 (B, L, V)，input_ids 形状 (B, L)。返回 (shifted_logits, shifted_labels)，"
            "形状为 (B, L-1, V) 和 (B, L-1)：正是交叉熵要比较的两个张量。",
        ),
        hints=(
            L(
                "The last position's logits have no next token to be compared with: drop them.",
                "最后一个位置的 logits 没有下一个 token 可比：去掉它们。",
            ),
            L(
                "The first label is never predicted: nothing comes before it.",
                "第一个标签永远不会被预测：它前面什么都没有。",
            ),
        ),
    ),
    Task(
        id="clm_loss",
        number=4,
        objective="clm",
        function="clm_loss",
        title=L("Causal LM loss with ignore_index = -100", "带 ignore_index = -100 的因果 LM 损失"),
        statement=L(
            "logits: (B, L, V), labels: (B, L) in the loss-side layout (labels = input_ids), with -100 wherever "
            "no loss is taken (padding). Shift inside (logits[:, :-1] against labels[:, 1:]) and return the mean "
            "cross-entropy over the positions whose label is not -100, as a 0-d tensor: the tensor itself, which "
            "backpropagates (not loss.item()).",
            "logits 形状 (B, L, V)，labels 形状 (B, L)，按损失侧排法（labels = input_ids），"
            "不计损失的位置（填充）标为 -100。在函数里完成移位（logits[:, :-1] 对 labels[:, 1:]），"
            "返回标签不为 -100 的位置上的平均交叉熵（0 维张量）：直接返回这个能反向传播的张量（不要 loss.item()）。",
        ),
        hints=(
            L(
                "F.cross_entropy wants (N, V) logits and (N,) labels: reshape both.",
                "F.cross_entropy 要 (N, V) 的 logits 和 (N,) 的标签：两者都要 reshape。",
            ),
            L(
                "ignore_index=-100 leaves those positions out of the mean, not just out of the sum.",
                "ignore_index=-100 让这些位置不进入平均，而不只是不进入求和。",
            ),
        ),
        exact=L(
            "Compared with the engine's loss on the same logits (to 1e-4).",
            "与引擎在同一组 logits 上的损失比较（误差 1e-4 以内）。",
        ),
    ),
    Task(
        id="lesson_clm_run",
        number=5,
        objective="clm",
        function="lesson_clm_run",
        title=L("Action item: the CLM run at another length", "行动清单：换个长度重跑 CLM 代码"),
        statement=L(
            "An action item of “Self-supervision and LM objectives”: run its CLM code with seq_len 4 instead of 8. Write it for any seed, batch "
            "and seq_len, drawing in the lesson's order from g = torch.Generator().manual_seed(seed): "
            "input_ids = randint(0, 10000, (batch, seq_len)), projection = randn(64, 10000) / 64 ** 0.5, "
            "hidden = randn(batch, seq_len, 64); logits = hidden @ projection; the loss pairs logits[:, :-1] "
            "with input_ids[:, 1:]. Return (input_ids, loss as a float, the (seq_len, seq_len) causal mask with "
            "True = blocked): the loss as loss.item() gives it, or the 0-d tensor itself (both are read as the same "
            "number); a string, a list or a NaN is not a loss. seed 0, batch 2, seq_len 8 gives the lesson's 9.6401.",
            "《自监督与语言建模目标》的行动清单：把 CLM 代码的序列长度从 8 改成 4。请对任意 seed、batch、seq_len 写出它，"
            "按讲义的顺序从 g = torch.Generator().manual_seed(seed) 抽样：input_ids = randint(0, 10000, (batch, seq_len))，"
            "projection = randn(64, 10000) / 64 ** 0.5，hidden = randn(batch, seq_len, 64)；logits = hidden @ projection；"
            "损失把 logits[:, :-1] 与 input_ids[:, 1:] 配对。返回三元组：input_ids、损失（float）、(seq_len, seq_len) 的因果掩码"
            "（True = 被遮盖）：损失可以是 loss.item() 给出的 float，也可以是 0 维张量本身（两者读出的是同一个数）；"
            "字符串、列表或 NaN 都不算损失。seed 0、batch 2、seq_len 8 应得到讲义的 9.6401。",
        ),
        hints=(
            L(
                "Pass generator=g to every draw, in the order given: another order gives other numbers.",
                "每次抽样都传 generator=g，并按给定顺序：顺序不同，数字就不同。",
            ),
            L(
                "Divide the projection by sqrt(64) before the matmul; without it the loss is far above ln 10000.",
                "矩阵乘法前把投影除以 sqrt(64)；不除的话损失会远高于 ln 10000。",
            ),
        ),
        exact=L(
            "Same generator, same draw order: compared with `objectives-tutor textbook clm --seed S --batch B --seq-len N` exactly.",
            "同一个生成器、同样的抽样顺序：与 `objectives-tutor textbook clm --seed S --batch B --seq-len N` 精确比较。",
        ),
    ),
    Task(
        id="bert_mask",
        number=6,
        objective="mlm",
        function="bert_mask",
        title=L("BERT masking: 15 % and 80/10/10", "BERT 掩码：15% 与 80/10/10"),
        statement=L(
            "ids: (B, L) LongTensor. Select each non-special token with probability p (never an id in "
            "special_ids). The selected are split 80/10/10: mask_id / a random NON-special id in [0, vocab_size), "
            "uniform over all of them (it may be the original itself; non-special is the course's rule: Google's and "
            "Hugging Face's code draw from the whole vocabulary) / unchanged. labels = the original id at "
            "every selected position and -100 everywhere else. Every random draw uses `generator`. Return "
            "(input_ids, labels), LongTensors of ids' shape; do not change ids itself.",
            "ids 是 (B, L) 的 LongTensor。每个非特殊 token 以概率 p 被选中（special_ids 里的 id 永远不选）。"
            "被选中的按 80/10/10 划分：换成 mask_id / 换成 [0, vocab_size) 中随机的一个“非特殊” id"
            "（在所有非特殊 id 上均匀抽取，也可能抽回原词；只抽非特殊 id 是本课程的规定，Google 和 Hugging Face 的代码"
            "从整个词表里抽）/ 保持不变。"
            "labels 在每个被选中的位置是原始 id，其余位置都是 -100。所有随机抽样都用 generator。"
            "返回 (input_ids, labels)，都是与 ids 同形状的 LongTensor；不要修改 ids 本身。",
        ),
        hints=(
            L(
                "Two uniform draws per position: one decides 'selected?' (< p), the other the fate (< 0.8, < 0.9).",
                "每个位置两次均匀抽样：一次决定是否选中（< p），一次决定命运（< 0.8、< 0.9）。",
            ),
            L(
                "Random replacements come from a pool of non-special ids; index it with randint.",
                "随机替换词从“非特殊 id”组成的池子里抽：用 randint 当下标。",
            ),
            L(
                "The label is the original token even where the input keeps it unchanged.",
                "即使输入保持不变，标签也是原始词。",
            ),
        ),
        exact=L(
            "Draw selection uniforms (rand of ids' shape), then fate uniforms, then one randint(0, len(pool)) per "
            "random position in row order, with the pool ascending: your output then equals the engine's exactly "
            "(the check says so). Other draw orders are right too, and are checked by the properties.",
            "先抽选中用的均匀数（与 ids 同形状的 rand），再抽命运用的均匀数，最后按行优先顺序为每个随机位置抽一次 "
            "randint(0, len(pool))，池子按 id 升序：这样你的输出与引擎完全一致（检查会告诉你）。别的抽样顺序也对，由性质检查判定。",
        ),
    ),
    Task(
        id="lesson_mlm_run",
        number=7,
        objective="mlm",
        function="lesson_mlm_run",
        title=L(
            "Action item: the MLM run with mask_prob 0.3",
            "行动清单：把 MLM 代码的 mask_prob 改成 0.3",
        ),
        statement=L(
            "An action item of “Self-supervision and LM objectives”: set mask_prob to 0.3 and count the selected tokens. Write the lesson's MLM "
            "preparation for any seed, p, batch and seq_len, from g = torch.Generator().manual_seed(seed) in the "
            "lesson's order: original = randint(5, 10000, (batch, seq_len)); selected = rand(shape) < p; "
            "fate = rand(shape); then row by row: fate < 0.8 -> [MASK] (id 4), < 0.9 -> randint(5, 10000, (1,)), "
            "else unchanged; labels = original where selected, else -100. Return (original, input_ids, labels).",
            "《自监督与语言建模目标》的行动清单：把 mask_prob 设为 0.3，数一数被选中的 token。请对任意 seed、p、batch、seq_len "
            "写出讲义的 MLM 数据准备，按讲义顺序从 g = torch.Generator().manual_seed(seed) 抽样："
            "original = randint(5, 10000, (batch, seq_len))；selected = rand(shape) < p；fate = rand(shape)；"
            "然后逐行逐位：fate < 0.8 -> [MASK]（id 4），< 0.9 -> randint(5, 10000, (1,))，否则不变；"
            "labels 在选中处为原词，其余为 -100。返回 (original, input_ids, labels)。",
        ),
        hints=(
            L(
                "The lesson's code uses the global RNG; here every draw takes generator=g instead.",
                "讲义用的是全局随机数；这里每次抽样都改用 generator=g。",
            ),
            L(
                "A random replacement is drawn inside the loop, only when a fate says 'random'.",
                "随机替换词是在循环里、命运为“随机”时才抽的。",
            ),
        ),
        exact=L(
            "Same generator, same draw order: compared with `objectives-tutor textbook mlm --seed S --p P` exactly.",
            "同一个生成器、同样的抽样顺序：与 `objectives-tutor textbook mlm --seed S --p P` 精确比较。",
        ),
    ),
    Task(
        id="mask_content",
        number=8,
        objective="mlm",
        function="mask_content",
        title=L(
            "Action item: [CLS] … [SEP], masking only the content", "行动清单：[CLS] … [SEP]，只掩盖内容"
        ),
        statement=L(
            "The last action item of “Self-supervision and LM objectives”. content: (L,) ids in [5, 10000). Build [CLS] + content + [SEP] with the "
            "lesson's ids ([PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4, vocabulary 10000) and apply BERT's "
            "masking with probability p to the content only: each content token is selected with probability p "
            "itself; the five specials are never selected and never drawn as random words (those are uniform "
            "over [5, 10000)). Return (input_ids, labels), LongTensors of length L + 2; do not change content.",
            "《自监督与语言建模目标》的最后一条行动清单。content 是 (L,) 的 id，取值在 [5, 10000)。用讲义的 id（[PAD]=0、[UNK]=1、"
            "[CLS]=2、[SEP]=3、[MASK]=4，词表 10000）拼成 [CLS] + content + [SEP]，只对内容部分按概率 p 施加 BERT 掩码："
            "每个内容 token 自己以概率 p 被选中；五个特殊符号既不被选中，也不会被抽成随机词（随机词在 [5, 10000) 上均匀抽取）。"
            "返回 (input_ids, labels)，都是长度为 L + 2 的 LongTensor；不要修改 content。",
        ),
        hints=(
            L(
                "torch.cat joins [CLS], the content and [SEP] into one sequence.",
                "torch.cat 把 [CLS]、内容和 [SEP] 拼成一条序列。",
            ),
            L(
                "Here every id below 5 is special: an eligibility mask is one comparison.",
                "这里小于 5 的 id 都是特殊符号：可选位置一次比较就能算出。",
            ),
        ),
    ),
    Task(
        id="whole_word_mask",
        number=9,
        objective="mlm",
        function="whole_word_mask",
        title=L("Whole-word masking", "整词掩码"),
        statement=L(
            "ids: (L,) pieces; word_ids: (L,) the word each piece belongs to (pieces of a word are adjacent; -1 "
            "for specials, which are never selected). Select each WORD with probability p: all its pieces are "
            "selected together or none is. Each selected piece then gets its own fate (80/10/10 as in task 6, "
            "random ids non-special and uniform, in [0, vocab_size)). labels = original on selected pieces, -100 "
            "elsewhere. Return (input_ids, labels), LongTensors; do not change ids.",
            "ids 是 (L,) 的子词；word_ids 是 (L,)，表示每个子词属于哪个词（同一个词的子词相邻；特殊符号为 -1，永不选中）。"
            "以概率 p 选“词”：一个词的所有子词要么一起被选中，要么都不选。每个被选中的子词再各自决定命运"
            "（与第 6 题相同的 80/10/10，随机词在 [0, vocab_size) 的非特殊 id 中均匀抽取）。labels 在被选中的子词处为原词，"
            "其余为 -100。返回 (input_ids, labels)，都是 LongTensor；不要修改 ids。",
        ),
        hints=(
            L(
                "Decide once per word, then copy the decision to every piece of that word.",
                "每个词只决定一次，再把结果复制给这个词的每个子词。",
            ),
            L(
                "The fate is still per piece: one word may have a [MASK] piece and a kept piece.",
                "命运仍按子词各自决定：同一个词可以一个子词是 [MASK]、另一个保持不变。",
            ),
        ),
        exact=L(
            "Draw one uniform per piece and use the uniform of each word's first piece for the word, then fate "
            "uniforms, then the random ids as in task 6: your output then equals the engine's exactly.",
            "每个子词抽一个均匀数、整个词用它第一个子词的均匀数，然后抽命运，再像第 6 题那样抽随机词：这样你的输出与引擎完全一致。",
        ),
    ),
    Task(
        id="causal_mask",
        number=10,
        objective="visibility",
        function="causal_mask",
        title=L("The causal mask", "因果掩码"),
        statement=L(
            "Return the (n, n) boolean causal mask in the lessons' convention: rows are query positions, "
            "columns key positions, True = blocked. Position q may look at keys 0..q (itself included) and at "
            "nothing later. (Change n from 8 to 4, as the action list of “Self-supervision and LM objectives” says, and look at it.)",
            "按讲义的约定返回 (n, n) 的布尔因果掩码：行是查询位置，列是键位置，True = 被遮盖。"
            "位置 q 可以看键 0..q（包括自己），不能看之后的任何位置。（按《自监督与语言建模目标》的行动清单把 n 从 8 改成 4，看看它的样子。）",
        ),
        hints=(
            L(
                "torch.triu keeps the upper triangle; diagonal=1 starts one above the diagonal.",
                "torch.triu 保留上三角；diagonal=1 从对角线上方一格开始。",
            ),
            L(
                "Blocked cells are where the column (key) is greater than the row (query).",
                "被遮盖的格子是列（键）大于行（查询）的地方。",
            ),
        ),
        exact=L("Compared with the engine's mask cell by cell.", "与引擎的掩码逐格比较。"),
    ),
    Task(
        id="padded_causal_mask",
        number=11,
        objective="visibility",
        function="padded_causal_mask",
        title=L("Padding combined with the causal mask", "填充掩码与因果掩码合并"),
        statement=L(
            "attention_mask: (B, L), 1 = real token, 0 = padding (Hugging Face's convention). Return the "
            "(B, L, L) boolean mask, True = blocked: query q of row b may not look at key k when k > q "
            "(the future) or when key k of row b is padding. Padding is read from attention_mask, never from "
            "token values. With left padding, the rows of the padded queries come out fully blocked (every key "
            "up to them is padding): the lesson's recipe, -inf before the softmax, then gives NaN in those rows "
            "(PyTorch's scaled_dot_product_attention returns zeros there instead). They carry no label, so "
            "nothing is learned from them either way; the mask asked for here keeps them fully blocked.",
            "attention_mask 形状 (B, L)，1 = 真实 token，0 = 填充（Hugging Face 的约定）。返回 (B, L, L) 的布尔掩码，"
            "True = 被遮盖：第 b 行的查询 q 在 k > q（未来）或第 b 行的键 k 是填充时不能看 k。"
            "填充只看 attention_mask，不看 token 的取值。左侧填充时，填充位置作为查询的那些行会整行被遮盖"
            "（它们能看的键全是填充）：按课上的做法在 softmax 前填 -inf，这些行会得到 NaN"
            "（PyTorch 的 scaled_dot_product_attention 在这些行返回 0）。这些行没有标签，怎样都学不到东西；"
            "这里要求的掩码让它们保持整行被遮盖。",
        ),
        hints=(
            L(
                "Broadcast: a (L, L) causal mask and a (B, 1, L) key-padding mask combine with |.",
                "广播：(L, L) 的因果掩码与 (B, 1, L) 的键填充掩码用 | 合并。",
            ),
            L("Padding blocks columns (keys), not rows.", "填充遮盖的是列（键），不是行。"),
        ),
        exact=L("Compared with the engine's mask cell by cell.", "与引擎的掩码逐格比较。"),
    ),
    Task(
        id="span_corrupt",
        number=12,
        objective="span",
        function="span_corrupt",
        title=L("T5 span corruption with sentinels and EOS", "T5 片段破坏：哨兵与 EOS"),
        statement=L(
            "ids: (N,) tokens; spans: sorted, non-overlapping (start, end) pairs, end exclusive; two spans that "
            "touch (one's end is the next's start) are ONE span. sentinel_ids[k] is <extra_id_k>. Follow T5: in "
            "inputs each span becomes one sentinel, numbered from 0 in order; targets are each sentinel followed "
            "by its span's tokens, then the next sentinel only when kept text follows the last span; both "
            "inputs and targets end with eos_id. Return (inputs, targets) as 1-D LongTensors.\n"
            "Two cases T5's own code never meets, by this course's convention: each sentinel comes before its "
            "span, so a span at position 0 makes the targets start with <extra_id_0> and that span; spans may "
            "be empty (nothing hidden): inputs = ids + </s>, targets = <extra_id_0> </s>.",
            "ids 是 (N,) 的 token；spans 是按顺序排好、互不重叠的 (start, end)，不含 end；两个首尾相接的片段"
            "（前一个的 end 等于后一个的 start）算作“一个”片段。sentinel_ids[k] 就是 <extra_id_k>。按 T5 的做法："
            "inputs 中每个片段换成一个哨兵，从 0 开始依次编号；targets 是每个哨兵后面跟着它片段的 token，"
            "只有当最后一个片段之后还有保留的文本时，才再接下一个哨兵；inputs 和 targets 都以 eos_id 结尾。"
            "返回 (inputs, targets)，都是 1 维 LongTensor。\n"
            "T5 自己的代码遇不到的两种情况，按本课程的约定处理：每个哨兵都写在它的片段之前，所以片段从位置 0 开始时，"
            "targets 以 <extra_id_0> 和这个片段开头；spans 可以为空（什么都不遮）：inputs = ids + </s>，"
            "targets = <extra_id_0> </s>。",
        ),
        hints=(
            L(
                "Merge touching spans first; then walk through them, keeping what lies between.",
                "先合并首尾相接的片段；再逐个处理，保留片段之间的文本。",
            ),
            L(
                "Sentinels count from 0: the first span is sentinel_ids[0].",
                "哨兵从 0 开始编号：第一个片段用 sentinel_ids[0]。",
            ),
            L(
                "If the last span reaches the end of the text, no closing sentinel follows it.",
                "如果最后一个片段一直到文本末尾，它后面就不接收尾哨兵。",
            ),
        ),
        exact=L(
            "Compared with the engine's T5 corruption value for value.", "与引擎的 T5 片段破坏逐项比较。"
        ),
    ),
    Task(
        id="prefix_lm_mask",
        number=13,
        objective="prefix-lm",
        function="prefix_lm_mask",
        title=L("The prefix-LM mask", "前缀 LM 掩码"),
        statement=L(
            "Return the (n, n) boolean prefix-LM mask, True = blocked, for 0 <= prefix_len <= n: query q may "
            "look at key k exactly when k <= q or k < prefix_len. The prefix is read both ways; after it, "
            "attention is causal again.",
            "返回 (n, n) 的布尔前缀 LM 掩码，True = 被遮盖，0 <= prefix_len <= n：查询 q 可以看键 k 当且仅当 "
            "k <= q 或 k < prefix_len。前缀内部双向可见；前缀之后又回到因果。",
        ),
        hints=(
            L(
                "Write allowed(q, k) with two aranges and broadcasting, then negate it.",
                "用两个 arange 加广播写出 allowed(q, k)，再取反。",
            ),
            L(
                "k < prefix_len, not k <= prefix_len: position prefix_len is the first causal one.",
                "是 k < prefix_len，不是 k <= prefix_len：位置 prefix_len 是第一个因果位置。",
            ),
        ),
        exact=L("Compared with the engine's mask cell by cell.", "与引擎的掩码逐格比较。"),
    ),
)

BY_ID: dict[str, Task] = {task.id: task for task in TASKS}


def find_task(name: str) -> Task | None:
    """A task by id, number ("6", "06", full-width "０６") or file name ("06_bert_mask.py")."""
    key = (
        unicodedata.normalize("NFKC", name).strip().replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    )
    if key in BY_ID:
        return BY_ID[key]
    head = key.split("_", 1)
    if head[0].isascii() and head[0].isdigit() and len(head[0]) <= 3:
        number = int(head[0])
        for task in TASKS:
            if task.number == number and (len(head) == 1 or head[1] == task.id):
                return task
    return None


def _docstring(task: Task) -> str:
    lines = [f"{task.number:02d} · {task.title['en']} / {task.title['zh']}", "", "[en]", task.statement["en"]]
    if task.exact:
        lines += ["", task.exact["en"]]
    lines += ["", "[中文]", task.statement["zh"]]
    if task.exact:
        lines += ["", task.exact["zh"]]
    lines += ["", f"Check / 检查:  objectives-tutor lab check {task.id}"]
    return '"""' + "\n".join(lines).replace('"""', "'''") + '\n"""\n'


@functools.cache
def code(kind: str, file_name: str) -> str:
    """The code of one task's file in ``starters`` or ``solutions`` (package data)."""
    return (FOLDER / kind / file_name).read_text(encoding="utf-8")


@functools.cache
def _signature(file_name: str, function: str) -> str:
    tree = ast.parse(code("starters", file_name))
    found = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function)
    returns = f" -> {ast.unparse(found.returns)}" if found.returns else ""
    return f"def {function}({ast.unparse(found.args)}){returns}:"


def _file(task: Task, kind: str) -> str:
    text = code(kind, task.file_name)
    return _docstring(task) + ("\n\n" if text.startswith("def ") else "\n") + text


def starter(task: Task) -> str:
    """The file handed out: the statement, the signature, a body that does not work yet."""
    return _file(task, "starters")


def solution(task: Task) -> str:
    """A reference file that passes every check."""
    return _file(task, "solutions")
