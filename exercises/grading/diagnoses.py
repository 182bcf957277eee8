"""Recognised misconceptions: a stable code and what it means in plain words.

The codes are a public contract (``check --json``, quiz reports): never rename
one, only add. Together they are the "common mistakes" the section “Self-supervision and LM objectives” names
as a heading but never writes out.
"""

from __future__ import annotations

from exercises.text import Bilingual, L

DIAGNOSES: dict[str, Bilingual] = {
    # Masked LM
    "loss-omits-random": L(
        "A token replaced by a random word is still a selected token: the model must recover the original there too, so it is in the loss.",
        "被换成随机词的位置仍是被选中的位置：模型同样要在那里还原原词，所以它也参与损失。",
    ),
    "loss-omits-kept": L(
        "A selected token left unchanged (the 10 % 'keep') still enters the loss: the model must confirm it.",
        "被选中但保持不变的位置（10% 的“不变”）同样参与损失：模型要学会确认它。",
    ),
    "loss-includes-unselected": L(
        "Only the selected positions enter the loss; every other label is -100 and is ignored.",
        "只有被选中的位置参与损失；其余位置的标签都是 -100，会被忽略。",
    ),
    "label-is-replacement": L(
        "The label is always the original token, never the random word that replaced it.",
        "标签永远是原始词，而不是替换进去的随机词。",
    ),
    "label-is-mask": L(
        "The label at a [MASK] position is the original token, not [MASK]: the model learns to fill the blank.",
        "[MASK] 位置的标签是原始词，不是 [MASK]：模型学的就是把空填回去。",
    ),
    "random-shown-as-mask": L(
        "A token whose fate is 'random' shows the random word in the input, not [MASK].",
        "被换成随机词的位置，输入里出现的是那个随机词，而不是 [MASK]。",
    ),
    "kept-shown-as-mask": L(
        "A token whose fate is 'keep' stays as it is in the input, although it is selected.",
        "处理为“保持不变”的位置虽然被选中，输入里仍是原词。",
    ),
    "mask-not-applied": L(
        "A selected token whose fate is [MASK] must be replaced by [MASK] in the input.",
        "被选中且要换成 [MASK] 的位置，输入里必须写 [MASK]。",
    ),
    "random-not-applied": L(
        "A token whose fate is 'random' is replaced by the random word in the input.",
        "要换成随机词的位置，输入里要写那个随机词。",
    ),
    "labels-for-unselected": L(
        "Unselected positions have no label (-100); give labels only where the loss is taken.",
        "未被选中的位置没有标签（-100）；只在参与损失的位置给出标签。",
    ),
    "one-based-positions": L(
        "Positions count from 0 here, as in the lessons (position 1 is the second token). Your answer is right counted from 1.",
        "这里位置从 0 开始计数，和讲义一致（位置 1 是第二个 token）。你的答案按从 1 计数是对的。",
    ),
    "specials-selected": L(
        "[CLS], [SEP] and the other special tokens are never selected for masking: only content tokens are.",
        "[CLS]、[SEP] 等特殊符号从不被选中做掩码：只有内容 token 才会。",
    ),
    "padding-selected": L(
        "Padding is not text: it is never selected and never enters the loss.",
        "填充不是文本：它从不被选中，也不参与损失。",
    ),
    # Masked LM as code (the code lab)
    "random-word-special": L(
        "This course's rule (its tasks say so): the random 10 % puts an ordinary token of the vocabulary in the token's place, never [MASK], [CLS], [SEP], [PAD] or another special. Google's create_pretraining_data.py and Hugging Face's DataCollatorForLanguageModeling draw from the whole vocabulary, specials included; with a few specials among tens of thousands of tokens the difference is rare.",
        "这是本课程的规则（题目里写明了）：那 10% 随机替换换上的是词表里的普通 token，从不是 [MASK]、[CLS]、[SEP]、[PAD] 或其他特殊符号。Google 的 create_pretraining_data.py 和 Hugging Face 的 DataCollatorForLanguageModeling 则从整个词表里抽，特殊符号也算在内；特殊符号只有几个，词表却有几万个 token，这点差别很少碰到。",
    ),
    "random-word-not-uniform": L(
        "In this course the random word is drawn uniformly from the non-special vocabulary: every ordinary id is equally likely (index a pool of all non-special ids with randint(0, len(pool))), not only the first few. (Google's and Hugging Face's code draw uniformly from the whole vocabulary.)",
        "本课程里随机词从非特殊词表中均匀抽取：每个普通 id 的机会相同（用 randint(0, len(pool)) 去索引由全部非特殊 id 组成的池子），而不是只抽前面几个。（Google 和 Hugging Face 的代码是在整个词表上均匀抽取。）",
    ),
    "random-excludes-original": L(
        "The random word may be the original token itself: Google's create_pretraining_data.py and Hugging Face's collator do not draw again then, and neither does this course (which draws from the non-special vocabulary, its own rule). The input then looks unchanged and the label is still the original; redrawing until the word differs changes the shares.",
        "随机词可能正好是原词：Google 的 create_pretraining_data.py 和 Hugging Face 的 collator 这时都不重抽，本课程也不重抽（本课程从非特殊词表里抽，这是它自己的规则）。这时输入看起来没变，标签仍是原词；一直重抽到不同为止，会改变各部分的比例。",
    ),
    "split-not-80-10-10": L(
        "Each selected token's fate is one uniform draw u: u < 0.8 gives [MASK], 0.8 <= u < 0.9 a random word, and the rest stay unchanged; the label is the original in all three cases.",
        "每个被选中 token 的命运由一次均匀抽样 u 决定：u < 0.8 换成 [MASK]，0.8 <= u < 0.9 换成随机词，其余保持不变；三种情况下标签都是原词。",
    ),
    "split-rest-not-halved": L(
        "After the [MASK] share the rest is halved: Hugging Face draws bernoulli(0.5) among the tokens not masked to pick the random ones. A probability of 0.1 there makes the random share a tenth of the rest, not half of it.",
        "分出 [MASK] 之后，剩下的对半分：Hugging Face 在没被换成 [MASK] 的 token 里用 bernoulli(0.5) 挑出随机替换的那些。在那里写 0.1，随机词就只占剩下部分的十分之一，而不是一半。",
    ),
    "selection-fixed-count": L(
        "This task selects each eligible token on its own with probability p (a coin per token, as Hugging Face's DataCollatorForLanguageModeling does), and its checks hold it to that: the count varies from row to row and short rows are masked at rate p too. Google's create_pretraining_data.py follows the other valid convention, a fixed max(1, round(p × n)) per sequence (the MLM lesson shows both); it is not this task's.",
        "本题让每个可选 token 各自以概率 p 被选中（每个 token 抛一次硬币，和 Hugging Face 的 DataCollatorForLanguageModeling 一样），检查也按这个约定：每行选中的个数各不相同，短行同样以比例 p 被掩码。Google 的 create_pretraining_data.py 采用另一种同样成立的约定：每个序列固定选 max(1, round(p × n)) 个（掩码语言建模一课两种都讲了）；只是本题不用它。",
    ),
    "p-rescaled": L(
        "p is the probability for each content token itself: leaving [CLS] and [SEP] out needs no correction of p such as p × (L + 2) / L.",
        "p 就是每个内容 token 自己被选中的概率：把 [CLS] 和 [SEP] 排除在外，并不需要把 p 修正成 p × (L + 2) / L 之类的值。",
    ),
    "word-one-fate": L(
        "Whole-word masking decides selection per word, but each selected piece then gets its own fate, as in Hugging Face's collator: one piece of a word may become [MASK] while another stays.",
        "整词掩码按词决定是否选中，但被选中的每个子词仍各自决定命运，和 Hugging Face 的 collator 一样：同一个词里可以一个子词变成 [MASK]，另一个保持不变。",
    ),
    "pieces-masked-separately": L(
        "Whole-word masking selects words, not pieces: draw once per word and give the decision to every piece; otherwise the model guesses a hidden piece from the rest of its own word.",
        "整词掩码选的是词，不是子词：每个词只抽一次，再把结果给它的每个子词；否则模型能从同一个词的其余子词猜出被遮住的那个。",
    ),
    "global-rng": L(
        "Every draw takes generator=generator: torch.rand, randint and bernoulli without it (and Python's random, numpy) use a global state the caller's seed does not control, so the same seed gives another result each time.",
        "每次抽样都要传 generator=generator：不传时 torch.rand、randint、bernoulli（还有 Python 的 random、numpy）用的是全局状态，调用者的种子管不到它，于是同一个种子每次结果都不同。",
    ),
    "generator-ignored": L(
        "The draws must come from the generator passed in: a generator made inside the function (torch.Generator().manual_seed(0)) gives the same masks whatever seed the caller chose.",
        "抽样必须来自传入的 generator：在函数里自己新建的生成器（torch.Generator().manual_seed(0)）不管调用者选什么种子，都给出同样的掩码。",
    ),
    "inputs-modified-in-place": L(
        "Writing with x[m] = v or an in-place method (masked_fill_, +=, append) changes the caller's own tensor or list, which the caller still needs (the labels are the original ids): copy first (ids.clone(), list(tokens)) and change the copy.",
        "用 x[m] = v 或原地方法（masked_fill_、+=、append）写入，会改掉调用者自己的张量或列表，而调用者之后还要用它（标签就是原始 id）：先复制（ids.clone()、list(tokens)），再改副本。",
    ),
    "ids-not-long": L(
        "Token ids and labels are LongTensors (int64): cross_entropy rejects int32 targets. torch.tensor of Python ints is already long; convert with .long() where needed.",
        "token id 和标签都是 LongTensor（int64）：cross_entropy 不接受 int32 的目标。用 Python 整数调用 torch.tensor 得到的本来就是 long，需要时用 .long() 转换。",
    ),
    # Causal LM
    "labels-not-shifted": L(
        "In causal LM the prediction at position t is scored against token t+1 (the lessons call the labels the inputs shifted right by one); scoring it against token t teaches the model to copy its input.",
        "因果语言建模里位置 t 的预测要和 token t+1 比较（讲义说标签是输入“右移一位”）；和 token t 比较，模型学会的只是抄输入。",
    ),
    "shifted-wrong-way": L(
        "Inputs are the tokens without the last one; labels are the tokens without the first one, not the other way round.",
        "输入是去掉最后一个 token 的序列；标签是去掉第一个 token 的序列，不要反过来。",
    ),
    # Packing (issue 24)
    "packing-no-separator": L(
        "Each document is followed by its end-of-document token (</s>) before the next begins: the separator takes a position in the stream, so every window after it shifts.",
        "每篇文档后面都跟着一个文档结束符（</s>），然后下一篇才开始：分隔符在流里占一个位置，它后面的窗口都要跟着错开。",
    ),
    "packing-one-document-per-window": L(
        "Packing does not start each document in a fresh window: the documents are concatenated into one stream and cut every L tokens, so a document runs on into the next window and a window can hold parts of two or three documents.",
        "打包不会让每篇文档另起一个窗口：文档先首尾相连成一条流，再每 L 个 token 切一刀，所以一篇文档会延续到下一个窗口，一个窗口里也可能有两三篇文档的片段。",
    ),
    "packing-boundary-label-dropped": L(
        "GPT-style packing keeps the labels at a document boundary: the last token of a document is trained to predict the separator, and the separator to predict the first token of the next document.",
        "GPT 式打包在文档交界处照样有标签：文档的最后一个 token 学习预测分隔符，分隔符学习预测下一篇文档的第一个 token。",
    ),
    "packing-label-skips-separator": L(
        "The separator is a token of the window: the position before it is trained to predict the separator itself, not the next document's first token.",
        "分隔符是窗口里的一个 token：它前面那个位置要预测的就是分隔符本身，而不是下一篇文档的第一个 token。",
    ),
    "packing-label-crosses-window": L(
        "A window is one row of the batch, read on its own: its last position has no next token in that row, so its label is -100 (Hugging Face's group_texts; nanoGPT instead reads L + 1 tokens so the last position has one).",
        "一个窗口是批次里独立的一行：它的最后一个位置在这一行里没有下一个 token，所以标签是 -100（Hugging Face 的 group_texts 如此；nanoGPT 则多读一个 token，让最后一个位置也有标签）。",
    ),
    # Whole-word masking (issue 24)
    "wwm-piece-only": L(
        "Whole-word masking selects words, not pieces: when one piece of a word is selected, every piece of that word is masked with it (for Chinese, every character of the segmented word).",
        "整词掩码按词选，不按片选：一个词只要有一片被选中，这个词的所有片都一起被遮住（中文则是分词后这个词的每个字）。",
    ),
    "wwm-label-whole-word": L(
        "The model still predicts each piece at its own position: the label at a piece is that piece (a piece such as ##or, or one Chinese character), not the whole word.",
        "模型仍然在每个位置上各自预测一片：某个位置的标签就是那一片（如 ##or，或一个汉字），而不是整个词。",
    ),
    "inputs-keep-last": L(
        "The last token is never an input in the lesson's layout: nothing comes after it to predict.",
        "按讲义的排法，最后一个 token 不作输入：它后面没有要预测的词。",
    ),
    "loss-not-tensor": L(
        "loss.item() and float(loss) give a plain number, cut off from the model: loss.backward() needs the tensor itself, so return it (and call .item() only to print it).",
        "loss.item() 和 float(loss) 得到的是普通数字，已经和模型断开：loss.backward() 需要张量本身，所以要返回它（.item() 只在打印时用）。",
    ),
    "mean-includes-ignored": L(
        "ignore_index keeps the -100 positions out of the mean as well as out of the sum: the loss is divided by the number of real labels, not by every position.",
        "ignore_index 让 -100 的位置既不进入求和，也不进入平均：损失除以真实标签的个数，而不是所有位置的个数。",
    ),
    "ignore-index-as-class": L(
        "-100 is not a class: cross_entropy(..., ignore_index=-100) skips those positions. Computing the loss by hand, leave them out of both the sum and the count.",
        "-100 不是一个类别：cross_entropy(..., ignore_index=-100) 会跳过这些位置。手写损失时，要把它们同时排除在求和与计数之外。",
    ),
    # Visibility and masks
    "causal-excludes-self": L(
        "Under a causal mask a position also sees itself: position i sees 0..i, diagonal included.",
        "因果掩码下位置也能看到自己：位置 i 能看到 0..i，包括对角线。",
    ),
    "causal-sees-future": L(
        "A causal (decoder) position may not look at later positions: that would leak the answer.",
        "因果（解码器）位置不能看后面的位置：那等于泄露答案。",
    ),
    "bidirectional-as-causal": L(
        "An encoder (bidirectional) position sees every position, left and right.",
        "编码器（双向）中的每个位置都能看到所有位置，左右都能看。",
    ),
    "prefix-ignored": L(
        "In prefix LM every position also sees the whole prefix: allowed(q, k) = k <= q or k < prefix.",
        "前缀语言模型里每个位置还能看到整个前缀：allowed(q, k) = k <= q 或 k < 前缀长度。",
    ),
    "prefix-fully-bidirectional": L(
        "Only the prefix is bidirectional; after it, positions are causal again and may not see the future.",
        "只有前缀是双向的；前缀之后的位置仍是因果的，不能看未来。",
    ),
    "prefix-sees-continuation": L(
        "Prefix positions may not look at the continuation: position prefix_len is the first one generated, so the prefix (k < prefix_len) is read both ways but keys from prefix_len on stay hidden from it.",
        "前缀中的位置不能看续写部分：位置 prefix_len 是第一个要生成的位置，所以前缀（k < prefix_len）内部双向可见，但从 prefix_len 开始的键对前缀仍是遮住的。",
    ),
    "visible-reversed": L(
        "Position i reads the positions it may attend to (its row of the mask), not the positions that may attend to it (its column): under a causal mask that is 0..i, not i and after.",
        "位置 i 能看的是它可以注意的那些位置（掩码里它那一行），而不是能注意到它的那些位置（它那一列）：因果掩码下是 0..i，而不是 i 及其之后。",
    ),
    "mask-transposed": L(
        "Rows are query positions and columns key positions: the blocked cells lie above the diagonal (column > row).",
        "行是查询位置、列是键位置：被遮盖的格子在对角线上方（列 > 行）。",
    ),
    "mask-blocks-diagonal": L(
        "The diagonal is not blocked: a position may look at itself (torch.triu with diagonal=1).",
        "对角线不遮盖：位置可以看自己（torch.triu 的 diagonal=1）。",
    ),
    "mask-inverted": L(
        "In the lessons' convention 1 (True) means blocked, 0 means may look.",
        "按讲义的约定，1（True）表示被遮盖，0 表示可以看。",
    ),
    # Span corruption
    "sentinel-reused": L(
        "Each span gets its own sentinel, numbered in order: <extra_id_0>, <extra_id_1>, ...",
        "每个片段有自己的哨兵，按顺序编号：<extra_id_0>、<extra_id_1>……",
    ),
    "sentinel-numbering-from-1": L(
        "Sentinels are numbered from 0: the first span is <extra_id_0>.",
        "哨兵从 0 开始编号：第一个片段是 <extra_id_0>。",
    ),
    "target-missing-final-sentinel": L(
        "When kept text follows the last span, T5's target ends with one more sentinel, which stands for that kept text.",
        "最后一个片段后面还有保留的文本时，T5 的目标序列再以一个哨兵结尾，它代表那段保留的文本。",
    ),
    "target-without-sentinels": L(
        "The target puts each span's sentinel before the span, so the model knows which blank it is filling.",
        "目标序列在每个片段前写上它的哨兵，模型才知道在填哪个空。",
    ),
    "span-end-inclusive": L(
        "Spans are start:end with the end excluded, like Python's tokens[start:end].",
        "片段写作 start:end，终点不包含在内，和 Python 的 tokens[start:end] 一样。",
    ),
    "span-kept-in-input": L(
        "The hidden span is removed from the input and replaced by one sentinel.",
        "被遮盖的片段要从输入中删掉，换成一个哨兵。",
    ),
    "t5-as-bart": L(
        "That is BART's text infilling: one [MASK] per span in the input, the whole text as the target. T5 replaces each span with its own numbered sentinel (<extra_id_0>, ...) and its target lists only the hidden spans, each after its sentinel.",
        "这是 BART 的文本填充：输入里每个片段换成一个 [MASK]，目标是整段原文。T5 把每个片段换成各自带编号的哨兵（<extra_id_0>……），目标只列出被遮住的片段，每段前面写上它的哨兵。",
    ),
    "one-sentinel-per-token": L(
        "A whole span is replaced by ONE sentinel, not one per token: that is what makes it span corruption.",
        "整个片段只换成“一个”哨兵，而不是每个 token 一个：这正是片段破坏的意思。",
    ),
    "eos-missing": L(
        "T5 ends both the inputs and the targets with </s> (eos_id): that is how the decoder learns where its answer stops.",
        "T5 的 inputs 和 targets 都以 </s>（eos_id）结尾：解码器由此学会答案在哪里结束。",
    ),
    # Counting
    "forgot-batch": L(
        "Count over the whole batch: batch size × sequence length tokens can be selected.",
        "要按整个批次来数：可被选中的 token 有 batch × 序列长度 个。",
    ),
    "p-as-percent": L(
        "p = 15 % is the fraction 0.15: multiply by 0.15, not by 15.",
        "p = 15% 就是 0.15：乘以 0.15，而不是乘以 15。",
    ),
    "split-of-all-tokens": L(
        "80/10/10 splits the SELECTED tokens, not all tokens.",
        "80/10/10 划分的是“被选中的” token，而不是全部 token。",
    ),
    # Loss sanity
    "log-base-10": L(
        "Cross-entropy uses the natural logarithm: the baseline is ln V, not log10 V.",
        "交叉熵用的是自然对数：基线是 ln V，不是 log10 V。",
    ),
    "log-base-2": L(
        "PyTorch's cross-entropy is in nats (natural log), not bits: the baseline is ln V, not log2 V.",
        "PyTorch 的交叉熵以 nat（自然对数）为单位，不是 bit：基线是 ln V，不是 log2 V。",
    ),
    "baseline-is-probability": L(
        "1/V is the probability a uniform guess gives the right token; the loss is minus its log, ln V.",
        "1/V 是均匀猜测猜中的概率；损失是它的负对数，即 ln V。",
    ),
    "scaling-bug-missed": L(
        "A loss far above ln V at initialisation means the logits are too large (softmax saturated): in this demo, a projection not scaled by 1/sqrt(d); in real models, usually the initialisation scale.",
        "初始化时损失远高于 ln V，说明 logits 太大、softmax 已饱和：在这个演示里是投影层没有按 1/sqrt(d) 缩放；在真实模型里多半是初始化的尺度不对。",
    ),
    "false-alarm": L(
        "A loss a little above ln V is what an untrained model gives; nothing is wrong.",
        "未训练的模型损失略高于 ln V 是正常的，没有问题。",
    ),
    # Concepts
    "objective-architecture-mismatch": L(
        "Objective and architecture usually go together: causal LM with decoder-only, masked LM with encoder-only, span corruption with encoder-decoder.",
        "目标和架构通常是配套的：因果语言建模配仅解码器，掩码语言建模配仅编码器，片段破坏配编码器-解码器。",
    ),
    "mlm-for-open-generation": L(
        "Masked LM fills blanks using both sides; open-ended generation continues left to right, which is what causal LM trains.",
        "掩码语言建模借两侧上下文填空；开放式生成是从左到右续写，这正是因果语言建模练的。",
    ),
    "clm-for-understanding-only": L(
        "A causal LM can classify from its last position, which has read everything; but each token's representation sees only its left, and BERT measured the cost on every task (Section 5.1): MRPC 86.5 → 77.5, and most on token-level SQuAD, 87.9 → 77.8.",
        "因果语言模型可以用读完全文的最后一个位置做分类；但每个 token 的表示只看得到左边，BERT 测出每个任务都有代价（5.1 节）：MRPC 86.5 → 77.5，逐 token 的 SQuAD 差得最多，87.9 → 77.8。",
    ),
    "fine-tuning-fixes-everything": L(
        "Pretraining sets a lasting bias in what the model is good at; fine-tuning builds on it, it does not erase it.",
        "预训练为模型能力定下了长期的偏向；微调是在它之上继续，而不是把它抹掉。",
    ),
    "objectives-ranked": L(
        "Masked LM and causal LM are not better or worse than each other: they are designed for different routes.",
        "掩码语言建模和因果语言建模没有高下之分：它们是为不同路线设计的。",
    ),
    "names-without-labels": L(
        "Understanding an objective means knowing how its inputs and labels are built, not just its name.",
        "理解一个目标，意味着知道它的输入和标签如何构造，而不只是记住名字。",
    ),
    "mask-only-training": L(
        "BERT's reason for 80/10/10: fine-tuning inputs never contain [MASK]. Its own ablation (Appendix C.2) found fine-tuning robust to the mix (MNLI 84.2, always-[MASK] 84.3); always-[MASK] cost most for features used without fine-tuning (NER 94.9 → 94.0).",
        "BERT 用 80/10/10 的理由：微调时的输入里没有 [MASK]。它自己的消融实验（附录 C.2）却发现微调对这个比例不敏感（MNLI 84.2，全用 [MASK] 为 84.3）；全用 [MASK] 的代价主要出现在不微调、直接用特征的时候（NER 94.9 → 94.0）。",
    ),
    "random-as-regularisation-only": L(
        "The random 10 % is noise (d2l calls it occasional noise), but not only noise: BERT's reason (Section 3.1) is that fine-tuning inputs never contain [MASK], so the model must represent every real token well, since any visible token may have been replaced.",
        "10% 随机词确实是噪声（d2l 称之为“偶尔的噪声”），但不只是噪声：BERT 给的理由（3.1 节）是微调时的输入里从不出现 [MASK]，所以模型得把每个真实 token 都表示好，因为任何一个可见的 token 都可能被换过。",
    ),
    "prefix-lm-is-causal": L(
        "Prefix LM lets the prefix attend both ways; only the part after it is causal.",
        "前缀语言模型让前缀内部双向可见；只有前缀之后的部分是因果的。",
    ),
    "prefix-loss-everywhere": L(
        "Prefix LM takes the loss only on the continuation: the prefix is visible to itself, so predicting it would be copying.",
        "前缀语言建模只在续写部分计算损失：前缀对自己是可见的，预测它等于抄答案。",
    ),
    "span-for-single-tokens": L(
        "Span corruption hides whole runs of tokens, which makes it closer to rewriting and summarising than single-token masking.",
        "片段破坏遮盖的是整段连续 token，因此比单个 token 的掩码更接近改写和摘要。",
    ),
    "self-supervision-needs-labels": L(
        "Self-supervision needs no human labels: the text itself supplies the targets (the next token, the hidden token).",
        "自监督不需要人工标注：文本本身就提供了目标（下一个词、被遮住的词）。",
    ),
    # h2 content (issue 9): CLM layouts and T5 targets
    "loss-side-inputs-cut": L(
        "In the loss-side layout the model reads all n tokens; the shift by one happens inside the loss (logits[:, :-1] against labels[:, 1:]), not in the inputs.",
        "损失端的排法里模型读全部 n 个 token；错开一位发生在损失函数里（logits[:, :-1] 对 labels[:, 1:]），不在输入里。",
    ),
    "labels-shifted-twice": L(
        "The shift by one is done once: in the data (data-side, logit t meets label t) or in the loss (loss-side, labels = input_ids, logit t meets label t+1). Doing both pairs position t with token t+2.",
        "错开一位只做一次：要么在数据里（数据端，logit t 对标签 t），要么在损失里（损失端，标签 = input_ids，logit t 对标签 t+1）。两处都错开，位置 t 就对上了 token t+2。",
    ),
    "wrong-layout": L(
        "Both layouts are right, but the question names one. Data-side: inputs tokens[:-1], labels tokens[1:], logit t meets label t. Loss-side: inputs and labels are all n tokens (labels = input_ids), and the loss pairs logit t with label t+1. This answer is in the other layout.",
        "两种排法都对，但题目指定了其中一种。数据端：输入 tokens[:-1]，标签 tokens[1:]，logit t 对标签 t。损失端：输入和标签都是全部 n 个 token（标签 = input_ids），损失把 logit t 和标签 t+1 配对。这个答案用的是另一种排法。",
    ),
    "target-extra-final-sentinel": L(
        "The last span runs to the end of the text: no kept text follows it, so T5's target ends with that span (then </s>), with no closing sentinel.",
        "最后一个片段一直到文本末尾：后面没有保留的文本，所以 T5 的目标序列以这个片段结尾（再接 </s>），不再加收尾的哨兵。",
    ),
    "touching-spans-split": L(
        "Spans that touch hide one unbroken run of tokens: T5 marks noise token by token, so they are one span with one sentinel.",
        "首尾相接的片段合起来遮住一段连续的 token：T5 逐个 token 标记噪声，所以它们是一个片段，只用一个哨兵。",
    ),
    "pairing-is-fixed": L(
        "The usual pairing is the natural fit, not a law: the T5 study and UL2 trained objectives on other architectures too (for example a prefix LM or a denoiser on a decoder-only stack).",
        "常见的配对只是最自然的搭配，而不是定律：T5 的研究和 UL2 也在别的架构上训练过这些目标（例如在仅解码器结构上做前缀语言建模或去噪）。",
    ),
    "objective-is-neutral": L(
        "Even when labels are made automatically, the objective decides what is practised, so it favours some abilities over others.",
        "即使标签是自动造出来的，目标也决定了模型练什么，因此它会偏向某些能力。",
    ),
    "tokens-independent": L(
        "A language model's probabilities are conditional: P(w1…wT) = P(w1) · P(w2 | w1) · … · P(wT | w<T), each factor depending on the tokens before it.",
        "语言模型的概率是条件概率：P(w1…wT) = P(w1) · P(w2 | w1) · … · P(wT | w<T)，每个因子都依赖它前面的 token。",
    ),
    "label-is-most-frequent": L(
        "The target is the token this text really had at that position, not the corpus' most frequent word there: each example scores the model against its own text, and the frequencies come out of many such examples.",
        "目标是这段文本在那个位置上原本的 token，而不是语料里那里最常见的词：每个样本都拿它自己的文本来评分，词频是从许多这样的样本里学出来的。",
    ),
    "mlm-sequence-probability": L(
        "A masked LM predicts each blank from everything else; those conditionals do not multiply into the probability of the text, as the chain rule's next-token factors do.",
        "掩码语言模型根据其余所有内容预测每个空；这些条件概率乘起来并不是整段文本的概率，链式法则里的“下一个词”因子才是。",
    ),
    # Misconceptions students bring that the lessons did not name (issue 32)
    "teacher-forcing-one-position": L(
        "With teacher forcing one forward pass trains every position at once: the model reads the true text, the causal mask keeps position t from seeing later tokens, and all T-1 next-token predictions are scored in parallel (T5 Section 2.4 calls it teacher forcing). Generation goes one token at a time; training does not.",
        "用 teacher forcing 时，一次前向传播就同时训练所有位置：模型读的是真实文本，因果掩码让位置 t 看不到后面的 token，T-1 个“下一个词”预测并行计算损失（T5 第 2.4 节：“teacher forcing”）。生成才是一个一个 token 地来，训练不是。",
    ),
    "perplexity-across-tokenizers": L(
        "Perplexity is per token: models with different tokenizers predict different units, and a masked LM's pseudo-perplexity predicts each token from both sides, so neither number compares with a causal LM's. Compare on the same text in the same units (per word or character), or on a task.",
        "困惑度是按 token 算的：分词器不同的模型预测的单位不同，掩码语言模型的伪困惑度又是借两侧预测每个 token，所以这些数都不能和因果语言模型的直接比。要在同一段文本、同样的单位（每个词或每个字）上比，或者比下游任务。",
    ),
    "bidirectional-sees-itself": L(
        "A standard language model cannot simply condition on both sides: in a deep stack each word would indirectly see itself through the other positions, and predicting it would be trivial (BERT Section 3.1). Masked LM hides the word in the input instead.",
        "普通的语言模型不能直接同时看两侧：在多层的结构里，每个词会借别的位置间接看到自己，预测它就成了抄答案（BERT 3.1 节）。掩码语言建模的办法是在输入里把这个词藏起来。",
    ),
    "static-dynamic-masking": L(
        "Google's BERT code masks the data once, before training (10 copies, dupe_factor), and reuses those masks: static masking. RoBERTa (Section 4.1) draws a new mask each time a sequence is fed to the model: dynamic masking, comparable or slightly better.",
        "Google 的 BERT 代码在训练前把数据掩码好（复制 10 份，dupe_factor），之后反复使用这些掩码：这叫静态掩码。RoBERTa（4.1 节）每次把序列送进模型时重新抽一遍：这叫动态掩码，效果相当或略好。",
    ),
    "mlm-signal-every-token": L(
        "A masked LM takes its loss at the selected positions alone, about 15 % of a sequence, so one pass trains about 15 % of the tokens as predictions, where a causal LM trains all T-1 (ELECTRA, Section 1: the network learns from 15 % of the tokens per example).",
        "掩码语言模型只在被选中的位置计算损失，约占序列的 15%，所以一次前向只把约 15% 的 token 当作预测来训练；因果语言模型则训练全部 T-1 个（ELECTRA 第 1 节：网络每个样本只从 15% 的 token 中学习）。",
    ),
    "cls-trained-only-by-nsp": L(
        "[CLS] takes part in every layer's attention like any token, so the masked-LM loss trains it too; NSP is one more loss read from its final vector. RoBERTa dropped NSP and still classifies from that first token.",
        "[CLS] 和其他 token 一样参与每一层的注意力，所以掩码语言建模的损失也在训练它；NSP 只是从它最后一层向量上再多读一个损失。RoBERTa 去掉了 NSP，分类时仍然用这第一个 token。",
    ),
    "padding-side-generation": L(
        "For batched generation a decoder-only model is padded on the left: new tokens are appended at the right end of each row, so right padding would put [PAD] between a prompt and its continuation (Hugging Face warns about right padding in a decoder-only model).",
        "仅解码器模型批量生成时要在左边填充：新 token 接在每一行的右端，右边填充会让 [PAD] 夹在提示和续写之间（Hugging Face 遇到仅解码器模型右填充时会给出警告）。",
    ),
    "too-good-loss-trusted": L(
        "A loss that falls near 0 within a few hundred steps on real text is a leak, not learning: real text is not that predictable. Look for a position that sees its own label: labels not shifted, or the causal mask missing.",
        "在真实文本上几百步之内损失就掉到接近 0，那是泄露，不是学会了：真实文本没有这么好预测。去找看得到自己标签的位置：标签没有错开，或者漏了因果掩码。",
    ),
    # Prefix LM labels
    "prefix-loss-starts-late": L(
        "The last prefix position already predicts the first continuation token, so its label is that token and it enters the loss.",
        "前缀的最后一个位置已经在预测续写的第一个 token，所以它有标签，也参与损失。",
    ),
    # Perplexity
    "perplexity-is-loss": L(
        "Perplexity is not the loss itself: it is exp(loss), the number of equally likely tokens the model is as unsure as.",
        "困惑度不是损失本身，而是 exp(损失)：模型的犹豫程度相当于在多少个等可能的 token 里挑一个。",
    ),
    "perplexity-base-10": L(
        "The loss is in nats (natural log), so perplexity is e^loss, not 10^loss.",
        "损失以 nat（自然对数）为单位，所以困惑度是 e^损失，不是 10^损失。",
    ),
    "perplexity-base-2": L(
        "2^loss would be right for a loss in bits; PyTorch's cross-entropy is in nats, so perplexity is e^loss.",
        "损失以 bit 为单位时才用 2^损失；PyTorch 的交叉熵以 nat 为单位，困惑度是 e^损失。",
    ),
    "perplexity-log-not-exp": L(
        "Going from perplexity to loss takes the natural log; going from loss to perplexity takes exp. This answer went the wrong way.",
        "从困惑度到损失取自然对数，从损失到困惑度取 exp。这个答案方向反了。",
    ),
    # The three masks
    "attention-polarity": L(
        "Each library has its own polarity: Hugging Face's attention_mask and SDPA's boolean mask use 1/True = may attend; this app and PyTorch's boolean key_padding_mask use 1/True = blocked.",
        "各个库的约定不同：Hugging Face 的 attention_mask 和 SDPA 的布尔掩码里 1/True 表示可以看；本应用和 PyTorch 的布尔 key_padding_mask 里 1/True 表示被遮盖。",
    ),
    "mask-token-blocked": L(
        "[MASK] is an ordinary input token: every position may attend to it. Hiding happens in the input text, not in the attention mask.",
        "[MASK] 是普通的输入 token，每个位置都可以注意到它。“遮住”发生在输入文本里，不在注意力掩码里。",
    ),
    "padding-attended": L(
        "Padding is not text: the attention mask keeps every position from attending to it.",
        "填充不是文本：注意力掩码让所有位置都不去看它。",
    ),
    "padding-blocks-queries": L(
        "Padding hides keys (columns), not queries (rows): a padding position's own output is simply not used, and blocking its whole row leaves softmax nothing to attend to (NaN).",
        "填充遮住的是键（列），不是查询（行）：填充位置自己的输出本来就不会被使用，而把它整行遮住会让 softmax 无处可看（得到 NaN）。",
    ),
    "loss-on-every-token": L(
        "In masked LM only the selected positions have a label and enter the loss; every other label is -100. (The loss mask is not the attention mask, which lets every position read every real token.)",
        "掩码语言建模里只有被选中的位置有标签、参与损失；其余标签都是 -100。（损失掩码不是注意力掩码：注意力掩码让每个位置都能看到所有真实的 token。）",
    ),
    # BART vs T5
    "bart-target-is-span": L(
        "BART's decoder rebuilds the whole original text; only T5's target lists just the hidden spans.",
        "BART 的解码器要重建整段原文；只写被遮住片段的是 T5 的目标。",
    ),
    "bart-sentinels": L(
        "BART marks a hidden span with one [MASK]; numbered sentinels such as <extra_id_0> are T5's.",
        "BART 用一个 [MASK] 标出被遮住的片段；<extra_id_0> 这样带编号的哨兵是 T5 的。",
    ),
    "bart-mask-per-token": L(
        "BART's text infilling replaces a whole span with ONE [MASK], so the model must also work out how many tokens are missing.",
        "BART 的文本填充把整个片段换成“一个” [MASK]，所以模型还得自己判断缺了几个 token。",
    ),
    # Next sentence prediction
    "nsp-still-needed": L(
        "BERT's A and B were already multi-sentence spans, up to 512 tokens. RoBERTa (Section 4.2) dropped NSP and packed full sentences: results matched or slightly improved. Why BERT found NSP useful is unsettled (RoBERTa: it may have kept the pair format).",
        "BERT 的 A 和 B 本来就是多句的连续片段，合起来最多 512 个 token。RoBERTa（4.2 节）去掉 NSP、装满完整句子：效果持平或略好。BERT 为何测出 NSP 有用并无定论（RoBERTa 推测它保留了句对格式）。",
    ),
    "nsp-is-generation": L(
        "NSP is one yes/no classification per sentence pair; it generates no text.",
        "NSP 对每个句对只做一次是/否分类，不生成任何文本。",
    ),
    "nsp-is-mlm": L(
        "NSP and masked LM are two separate losses in BERT: masked LM predicts the hidden tokens, NSP makes one "
        "decision about the pair from a single vector.",
        "BERT 里 NSP 和掩码语言建模是两个独立的损失：掩码语言建模预测被遮住的 token，NSP 只用一个向量对句对做一次判断。",
    ),
    "nsp-needs-labels": L(
        "NSP's labels come from the corpus itself: half the time B is the text that really followed A, half the time a span from another document.",
        "NSP 的标签来自语料本身：一半情况 B 是原文里真正紧跟在 A 后面的文字，一半是从别的文档取来的一段。",
    ),
    # The code lab's named mistakes (issue 31)
    "fate-reuses-selection-draw": L(
        "Selection and fate need two draws: with one uniform u, u < p selects and the fate thresholds 0.8 and 0.9 are met only by the u that are already below p, so at p = 0.15 every selected token becomes [MASK] (no random word, none kept). Draw the fate separately (or take it from u / p).",
        "选中和命运需要两次抽样：只用一个均匀数 u 时，u < p 决定选中，而命运的阈值 0.8 和 0.9 只会遇到已经小于 p 的 u，所以 p = 0.15 时每个被选中的 token 都变成 [MASK]（没有随机词，也没有保持不变）。命运要单独抽（或者用 u / p）。",
    ),
    "rows-masked-together": L(
        "Each token of each row is selected on its own: a selection drawn once per column (or once per row) and repeated masks the same positions in every row, which the rate alone does not show.",
        "每一行的每个 token 都各自决定是否被选中：按列（或按行）只抽一次再复制，会让每一行在同样的位置被掩码，光看比例是看不出来的。",
    ),
    "selection-ignores-p": L(
        "The selection rate is p itself, for every p: a rate fixed in the code (0.15) is right at one p only.",
        "选中的比例就是 p 本身，对每个 p 都如此：在代码里写死的比例（0.15）只在一个 p 上是对的。",
    ),
    "loss-nll-on-logits": L(
        "F.nll_loss expects log-probabilities: on raw logits it is not the cross-entropy. Use F.cross_entropy on the logits (or nll_loss after log_softmax).",
        "F.nll_loss 要的是对数概率：直接用在原始 logits 上就不是交叉熵。请对 logits 用 F.cross_entropy（或者先 log_softmax 再用 nll_loss）。",
    ),
    "loss-mean-per-row": L(
        "The loss is the mean over every real label of the batch at once: a mean of each row's mean weights a short row's labels more than a long row's.",
        "损失是整个批次所有真实标签一起求平均：先对每行求平均再平均，会让短行里的标签比长行里的标签分量更重。",
    ),
    "loss-summed": L(
        "The loss is the mean over the real labels, not their sum: a sum grows with the batch and the sequence length.",
        "损失是真实标签上的平均，不是总和：总和会随批次大小和序列长度一起变大。",
    ),
    "eos-before-closing-sentinel": L(
        "</s> is the very last token of the targets: the closing sentinel comes before it.",
        "</s> 是 targets 的最后一个 token：收尾的哨兵写在它前面。",
    ),
}


def explain(code: str) -> Bilingual:
    """The plain-words meaning of a diagnosis code (the code itself if unknown)."""
    return DIAGNOSES.get(code, L(code, code))
