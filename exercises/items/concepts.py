"""The concept checks: objective and architecture, objective and task, the
second lesson's three misconceptions, why 80/10/10, prefix LM, self-supervision."""

from __future__ import annotations

from exercises.items.choice import Option, Question, choice_exercise
from exercises.text import L

RIGHT = L("Right.", "正确。")

ARCHITECTURE = choice_exercise(
    "concept-architecture",
    L("Objective ↔ architecture", "目标 ↔ 架构"),
    (
        Question(
            L(
                "Which architecture goes naturally with causal language modelling?",
                "哪种架构与因果语言建模天然匹配？",
            ),
            (
                Option(
                    L("decoder-only", "仅解码器"),
                    True,
                    L(
                        "Right: a decoder may only look at the past, exactly what causal LM asks, in training and in generation.",
                        "正确：解码器只能看过去，正是因果 LM 的要求，训练和生成时都一样。",
                    ),
                ),
                Option(
                    L("encoder-only", "仅编码器"),
                    False,
                    L(
                        "An encoder sees the whole sequence, including the token it should predict next.",
                        "编码器能看到整句话，包括它要预测的下一个词。",
                    ),
                    "objective-architecture-mismatch",
                ),
                Option(
                    L("encoder-decoder", "编码器-解码器"),
                    False,
                    L(
                        "An encoder-decoder maps one text to another; plain continuation needs no separate encoder.",
                        "编码器-解码器把一段文本映射成另一段；单纯续写不需要单独的编码器。",
                    ),
                    "objective-architecture-mismatch",
                ),
            ),
        ),
        Question(
            L(
                "Why does masked LM fit an encoder-only Transformer?",
                "为什么掩码 LM 适合仅编码器的 Transformer？",
            ),
            (
                Option(
                    L(
                        "its attention is bidirectional, so a masked position can use context on both sides",
                        "它的注意力是双向的，被遮盖的位置可以利用两侧的上下文",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L("its causal mask hides the masked tokens", "它的因果掩码会把被遮盖的词藏起来"),
                    False,
                    L(
                        "An encoder has no causal mask; hiding is done by [MASK] in the input.",
                        "编码器没有因果掩码；遮盖靠的是输入里的 [MASK]。",
                    ),
                    "objective-architecture-mismatch",
                ),
                Option(
                    L("it generates the masked tokens one after another", "它会一个接一个地生成被遮盖的词"),
                    False,
                    L(
                        "An encoder predicts every masked position at once, from the full context; it does not generate.",
                        "编码器从完整上下文中一次性预测所有被遮盖的位置；它不做逐词生成。",
                    ),
                    "mlm-for-open-generation",
                ),
            ),
        ),
        Question(
            L(
                "Why does T5's span corruption go with an encoder-decoder?",
                "为什么 T5 的片段破坏要配编码器-解码器？",
            ),
            (
                Option(
                    L(
                        "the encoder reads the corrupted input; the decoder writes the missing spans as a separate output",
                        "编码器读破坏后的输入；解码器把缺失的片段作为另一段输出写出来",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L("the input must be read causally, left to right", "输入必须从左到右因果地读"),
                    False,
                    L("The encoder reads the input in both directions.", "编码器是双向地读输入的。"),
                    "objective-architecture-mismatch",
                ),
                Option(
                    L("the target has the same length as the input", "目标序列和输入一样长"),
                    False,
                    L(
                        "The target holds only the sentinels and the hidden spans: usually much shorter.",
                        "目标序列只含哨兵和被遮盖的片段：通常短得多。",
                    ),
                    "span-for-single-tokens",
                ),
            ),
        ),
    ),
    (
        L("Ask what each position may see while training.", "想一想训练时每个位置能看到什么。"),
        L("Decoders look only left; encoders look both ways.", "解码器只看左边；编码器两边都看。"),
        L("Does the objective produce a separate output text?", "这个目标会产生一段单独的输出文本吗？"),
    ),
)

TASKS = choice_exercise(
    "concept-task",
    L("Which objective for which task?", "什么任务配什么目标？"),
    (
        Question(
            L(
                "You want a strong summarisation model. Which pretraining objective would you lean towards?",
                "你想要一个很强的摘要模型，会更偏向哪类预训练目标？",
            ),
            (
                Option(
                    L("span corruption / denoising (text to text)", "片段破坏 / 去噪（文本到文本）"),
                    True,
                    L(
                        "Right: recovering missing spans trains mapping an input text to an output text, like a summary.",
                        "正确：恢复缺失片段练的就是把输入文本映射成输出文本，和摘要一样。",
                    ),
                ),
                Option(
                    L("masked LM alone", "只用掩码 LM"),
                    False,
                    L(
                        "Masked LM trains filling single blanks, not writing a new text.",
                        "掩码 LM 练的是填单个空，而不是写出一段新文本。",
                    ),
                    "mlm-for-open-generation",
                ),
                Option(
                    L("it does not matter: fine-tuning decides", "无所谓：微调说了算"),
                    False,
                    L(
                        "Pretraining sets a lasting bias that fine-tuning builds on.",
                        "预训练定下的偏向会一直保留，微调是在它之上继续。",
                    ),
                    "fine-tuning-fixes-everything",
                ),
            ),
        ),
        Question(
            L("For open-ended generation (chat, story writing)?", "开放式生成（聊天、写故事）用哪种？"),
            (
                Option(
                    L("causal LM", "因果 LM"),
                    True,
                    L(
                        "Right: training and generating both go left to right.",
                        "正确：训练和生成都是从左到右。",
                    ),
                ),
                Option(
                    L("masked LM", "掩码 LM"),
                    False,
                    L(
                        "Masked LM relies on the right-hand context, which generation does not have.",
                        "掩码 LM 依赖右侧上下文，而生成时并没有。",
                    ),
                    "mlm-for-open-generation",
                ),
                Option(
                    L("masking single tokens at random", "随机遮盖单个 token"),
                    False,
                    L(
                        "That is masked LM again: filling blanks, not continuing.",
                        "那还是掩码 LM：填空，不是续写。",
                    ),
                    "mlm-for-open-generation",
                ),
            ),
        ),
        Question(
            L("For sentence classification or entity recognition?", "句子分类或实体识别用哪种？"),
            (
                Option(
                    L("masked LM", "掩码 LM"),
                    True,
                    L(
                        "Right: every token's representation sees the whole sentence.",
                        "正确：每个 token 的表示都看到整句话。",
                    ),
                ),
                Option(
                    L("causal LM, because it only needs the left context", "因果 LM，因为只需要左侧上下文"),
                    False,
                    L(
                        "Understanding a word often needs what comes after it; causal LM cannot see that.",
                        "理解一个词常常需要它后面的内容；因果 LM 看不到。",
                    ),
                    "clm-for-understanding-only",
                ),
                Option(
                    L("any: after fine-tuning they are all the same", "哪个都行：微调之后都一样"),
                    False,
                    L(
                        "The objective shapes lasting strengths; fine-tuning does not level them.",
                        "目标塑造了长期的强项；微调不会把它们拉平。",
                    ),
                    "fine-tuning-fixes-everything",
                ),
            ),
        ),
    ),
    (
        L("Match what the model practises to what the task asks.", "把模型练的东西和任务要求对应起来。"),
        L(
            "Does the task write new text, or understand given text?",
            "这个任务是写新文本，还是理解给定的文本？",
        ),
        L(
            "Continue → causal LM; fill in → masked LM; rewrite → span corruption.",
            "续写 → 因果 LM；填空 → 掩码 LM；改写 → 片段破坏。",
        ),
    ),
)

MISCONCEPTIONS = choice_exercise(
    "concept-misconceptions",
    L("The three common misconceptions", "三个常见误区"),
    (
        Question(
            L("Which statement is right?", "下面哪一句是对的？"),
            (
                Option(
                    L(
                        "the pretraining objective gives the model a lasting bias",
                        "预训练目标会给模型留下长期的能力偏向",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L(
                        "fine-tuning erases whatever the pretraining objective taught",
                        "微调会抹掉预训练目标教给模型的一切",
                    ),
                    False,
                    L(
                        "Fine-tuning builds on pretraining; it does not start over.",
                        "微调是在预训练的基础上继续，并不是从头来过。",
                    ),
                    "fine-tuning-fixes-everything",
                ),
                Option(
                    L(
                        "masked LM is a more advanced objective than causal LM",
                        "掩码 LM 是比因果 LM 更高级的目标",
                    ),
                    False,
                    L(
                        "They are designs for different routes, not levels.",
                        "它们是针对不同路线的设计，不是等级。",
                    ),
                    "objectives-ranked",
                ),
                Option(
                    L(
                        "knowing the names CLM, MLM and span corruption is what matters",
                        "记住 CLM、MLM、片段破坏这些名字才是关键",
                    ),
                    False,
                    L("What matters is how inputs and labels are built.", "关键在于输入和标签是怎么构造的。"),
                    "names-without-labels",
                ),
            ),
        ),
        Question(
            L("Is masked LM better than causal LM?", "掩码 LM 比因果 LM 更好吗？"),
            (
                Option(L("neither: they suit different routes", "都不是：它们适合不同的路线"), True, RIGHT),
                Option(
                    L("yes: bidirectional context always wins", "是：双向上下文总是更好"),
                    False,
                    L(
                        "Bidirectional context does not help a model that must generate left to right.",
                        "对必须从左到右生成的模型来说，双向上下文帮不上忙。",
                    ),
                    "objectives-ranked",
                ),
                Option(
                    L(
                        "no: the largest models use causal LM, so it is better",
                        "不是：最大的模型都用因果 LM，所以它更好",
                    ),
                    False,
                    L(
                        "Popularity for generation is not a ranking of objectives.",
                        "在生成任务上流行，并不代表目标有高下之分。",
                    ),
                    "objectives-ranked",
                ),
            ),
        ),
        Question(
            L("What best shows that you understand an objective?", "怎样最能说明你理解了一个训练目标？"),
            (
                Option(
                    L("building its inputs and labels from a sentence", "能从一句话构造出它的输入和标签"),
                    True,
                    RIGHT,
                ),
                Option(
                    L("knowing its acronym and which famous model uses it", "知道它的缩写和哪个著名模型在用"),
                    False,
                    L("A name says nothing about what the model practises.", "名字说明不了模型在练什么。"),
                    "names-without-labels",
                ),
                Option(
                    L("knowing that fine-tuning follows it", "知道它后面还有微调"),
                    False,
                    L(
                        "Fine-tuning comes after every objective; it does not explain any.",
                        "每个目标之后都有微调；这解释不了任何一个目标。",
                    ),
                    "fine-tuning-fixes-everything",
                ),
            ),
        ),
    ),
    (
        L(
            "Think of pretraining as the kind of exercises a student practises every day.",
            "把预训练想成学生每天刷的题型。",
        ),
        L(
            "Different exercises build different strengths; neither is 'higher'.",
            "不同题型练出不同强项；没有谁更“高级”。",
        ),
        L("Look at inputs and labels, not names.", "看输入和标签，而不是名字。"),
    ),
)

EIGHTY_TEN_TEN = choice_exercise(
    "concept-80-10-10",
    L("Why 80/10/10?", "为什么是 80/10/10？"),
    (
        Question(
            L(
                "Why does BERT turn only 80 % of the selected tokens into [MASK], 10 % into a random token and leave 10 % unchanged?",
                "为什么 BERT 只把 80% 的被选中 token 换成 [MASK]，10% 换成随机词，10% 保持不变？",
            ),
            (
                Option(
                    L(
                        "fine-tuning inputs never contain [MASK], so the model must also learn good representations of real tokens",
                        "微调时的输入里从不出现 [MASK]，所以模型也必须学好真实 token 的表示",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L("only to add noise, as regularisation", "只是为了加噪声，起正则化作用"),
                    False,
                    L(
                        "The point is the pretrain/fine-tune mismatch, not noise for its own sake.",
                        "关键是预训练与微调的不匹配，而不是为了加噪声本身。",
                    ),
                    "random-as-regularisation-only",
                ),
                Option(
                    L("so that fewer positions enter the loss", "为了让参与损失的位置更少"),
                    False,
                    L(
                        "All selected positions enter the loss, whatever their fate.",
                        "所有被选中的位置都参与损失，不论它被怎样处理。",
                    ),
                    "loss-omits-random",
                ),
            ),
        ),
        Question(
            L(
                "A selected token was left unchanged. Is it in the loss?",
                "一个被选中的 token 保持不变。它参与损失吗？",
            ),
            (
                Option(L("yes, its label is the token itself", "参与，标签就是它自己"), True, RIGHT),
                Option(
                    L("no, nothing changed so there is nothing to learn", "不参与，没变就没什么可学"),
                    False,
                    L(
                        "The model learns to confirm a token it cannot know was kept.",
                        "模型要学会确认这个词——它无从得知这个词是被保留的。",
                    ),
                    "loss-omits-kept",
                ),
                Option(
                    L("only if it is the [CLS] token", "只有它是 [CLS] 时才参与"),
                    False,
                    L("[CLS] is never selected at all.", "[CLS] 根本不会被选中。"),
                    "specials-selected",
                ),
            ),
        ),
        Question(
            L("What would go wrong if BERT always used [MASK]?", "如果 BERT 总是用 [MASK]，会出什么问题？"),
            (
                Option(
                    L(
                        "the model would learn little about representing real, visible tokens, which is all fine-tuning shows it",
                        "模型对真实可见 token 的表示学得很少，而微调时它看到的全是这样的 token",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L("nothing: [MASK] is the clearest training signal", "没问题：[MASK] 是最清楚的训练信号"),
                    False,
                    L("Clear, but it never appears after pretraining.", "清楚，但预训练之后它再也不会出现。"),
                    "mask-only-training",
                ),
                Option(
                    L("the loss could no longer be computed", "损失就没法计算了"),
                    False,
                    L(
                        "The loss works the same; the labels are the originals.",
                        "损失照样计算；标签是原始词。",
                    ),
                    "mask-only-training",
                ),
            ),
        ),
    ),
    (
        L("What does the model see during fine-tuning?", "微调时模型看到的是什么？"),
        L("Is [MASK] ever in a real sentence?", "真实句子里会出现 [MASK] 吗？"),
        L(
            "Every selected position has a label, whatever the input shows there.",
            "每个被选中的位置都有标签，不管输入里那里显示什么。",
        ),
    ),
)

PREFIX = choice_exercise(
    "concept-prefix-lm",
    L("Prefix LM", "前缀 LM"),
    (
        Question(
            L(
                "In prefix LM, which positions may a token inside the prefix attend to?",
                "在前缀 LM 中，前缀里的一个 token 能看到哪些位置？",
            ),
            (
                Option(
                    L("every prefix position, both directions", "前缀里的所有位置，两个方向都可以"),
                    True,
                    RIGHT,
                ),
                Option(
                    L("only earlier prefix positions", "只有前缀里更早的位置"),
                    False,
                    L(
                        "That is plain causal LM; the prefix is bidirectional.",
                        "那是普通的因果 LM；前缀内部是双向的。",
                    ),
                    "prefix-lm-is-causal",
                ),
                Option(
                    L("every position, the continuation included", "所有位置，包括续写部分"),
                    False,
                    L(
                        "The continuation stays hidden from the prefix: it is what must be predicted.",
                        "续写部分对前缀是隐藏的：那正是要预测的内容。",
                    ),
                    "prefix-fully-bidirectional",
                ),
            ),
        ),
        Question(
            L("Where does prefix LM take its loss?", "前缀 LM 在哪里计算损失？"),
            (
                Option(L("only on the continuation after the prefix", "只在前缀之后的续写部分"), True, RIGHT),
                Option(
                    L("on every position", "每个位置"),
                    False,
                    L(
                        "Prefix tokens are visible to the whole prefix: predicting them would be copying.",
                        "前缀 token 对整个前缀可见：预测它们等于抄答案。",
                    ),
                    "prefix-loss-everywhere",
                ),
                Option(
                    L("only on the prefix", "只在前缀上"),
                    False,
                    L(
                        "The prefix is the given context; the continuation is what is learnt.",
                        "前缀是给定的上下文；要学的是续写部分。",
                    ),
                    "prefix-loss-everywhere",
                ),
            ),
        ),
        Question(
            L("Which tasks suit prefix LM?", "前缀 LM 适合什么任务？"),
            (
                Option(
                    L(
                        "reading a context fully, then generating a continuation",
                        "先完整读懂上下文，再生成续写",
                    ),
                    True,
                    RIGHT,
                ),
                Option(
                    L("only classification", "只适合分类"),
                    False,
                    L(
                        "Its causal part generates; it is not classification-only.",
                        "它的因果部分负责生成；不只是分类。",
                    ),
                    "objective-architecture-mismatch",
                ),
                Option(
                    L("only open-ended generation with no context", "只适合没有上下文的开放式生成"),
                    False,
                    L(
                        "The bidirectional prefix is there to read a given context.",
                        "双向前缀就是用来读给定上下文的。",
                    ),
                    "prefix-lm-is-causal",
                ),
            ),
        ),
    ),
    (
        L("Two zones: the prefix and the continuation.", "两个区域：前缀和续写。"),
        L("allowed(q, k) = k <= q or k < prefix length.", "allowed(q, k) = k <= q 或 k < 前缀长度。"),
        L("Would predicting a visible token teach anything?", "预测一个看得见的 token 能学到东西吗？"),
    ),
)

SELF_SUPERVISION = choice_exercise(
    "concept-self-supervision",
    L("Self-supervision", "自监督"),
    (
        Question(
            L(
                "Where do the labels of language-model pretraining come from?",
                "语言模型预训练的标签从哪里来？",
            ),
            (
                Option(L("from the text itself", "来自文本本身"), True, RIGHT),
                Option(
                    L("from human annotators", "来自人工标注"),
                    False,
                    L(
                        "No annotation: the next or hidden token is already in the text.",
                        "不需要标注：下一个词或被遮住的词本来就在文本里。",
                    ),
                    "self-supervision-needs-labels",
                ),
                Option(
                    L("from a smaller model that labels the text", "来自给文本打标签的小模型"),
                    False,
                    L(
                        "That would be distillation; self-supervision needs no labeller.",
                        "那是蒸馏；自监督不需要标注者。",
                    ),
                    "self-supervision-needs-labels",
                ),
            ),
        ),
        Question(
            L(
                "Why can pretraining use far more data than supervised learning?",
                "为什么预训练能用的数据比监督学习多得多？",
            ),
            (
                Option(L("any text makes its own targets", "任何文本都能自己造出目标"), True, RIGHT),
                Option(
                    L("because it needs fewer human labels per sentence", "因为每句话需要的人工标注更少"),
                    False,
                    L("It needs none at all.", "它根本不需要人工标注。"),
                    "self-supervision-needs-labels",
                ),
                Option(
                    L("because its loss is smaller", "因为它的损失更小"),
                    False,
                    L(
                        "The loss size says nothing about how much data can be used.",
                        "损失大小与能用多少数据无关。",
                    ),
                    "names-without-labels",
                ),
            ),
        ),
    ),
    (
        L(
            "What would you need to label a sentence for next-token prediction?",
            "给一句话做“预测下一个词”的标注需要什么？",
        ),
        L("The target is already written in the text.", "目标已经写在文本里了。"),
        L(
            "Hiding part of the text creates a question and its answer at once.",
            "遮住文本的一部分，就同时造出了题目和答案。",
        ),
    ),
)

EXERCISES = (ARCHITECTURE, TASKS, MISCONCEPTIONS, EIGHTY_TEN_TEN, PREFIX, SELF_SUPERVISION)
