"""The concept checks: objective and architecture, objective and task, the
the section “Pretraining methods”' three misconceptions, why 80/10/10, prefix LM, self-supervision
and next sentence prediction. Each is a pool of at least eight questions; every
wrong option names the misconception a learner who picks it holds, and
``exercises --check`` looks for tells (absolute words only in wrong options, the
right option by far the longest, two options saying the same).

Facts follow the lessons and the papers: BERT (Devlin et al., 2018: MLM, NSP on
the [CLS] vector, 50 % IsNext), RoBERTa (Liu et al., 2019: NSP removed, full
sentences from contiguous text), ALBERT (Lan et al., 2019: sentence-order
prediction), T5 (Raffel et al., 2019: span corruption by ablation inside a
text-to-text framework; prefix LM on a decoder-only stack)."""

from __future__ import annotations

from exercises.items.choice import Option, Question, choice_exercise
from exercises.text import Bilingual, L

RIGHT = L("Right.", "正确。")


def right(en: str, zh: str, why: Bilingual = RIGHT) -> Option:
    return Option(L(en, zh), True, why)


def wrong(en: str, zh: str, why_en: str, why_zh: str, code: str) -> Option:
    return Option(L(en, zh), False, L(why_en, why_zh), code)


def ask(en: str, zh: str, *options: Option) -> Question:
    return Question(L(en, zh), options)


ARCHITECTURE = choice_exercise(
    "concept-architecture",
    L("Objective ↔ architecture", "目标 ↔ 架构"),
    (
        ask(
            "Which architecture goes naturally with causal language modelling?",
            "哪种架构与因果语言建模天然匹配？",
            right(
                "decoder-only",
                "仅解码器",
                L(
                    "Right: a decoder looks only at the past, as causal LM asks, in training and in generation.",
                    "正确：解码器只看过去，正是因果 LM 的要求，训练和生成时都一样。",
                ),
            ),
            wrong(
                "encoder-only",
                "仅编码器",
                "An encoder sees the whole sequence, including the token it should predict next.",
                "编码器能看到整句话，包括它要预测的下一个词。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "encoder-decoder",
                "编码器-解码器",
                "An encoder-decoder maps one text to another; plain continuation needs no separate encoder.",
                "编码器-解码器把一段文本映射成另一段；单纯续写不需要单独的编码器。",
                "objective-architecture-mismatch",
            ),
        ),
        ask(
            "Why does masked LM fit an encoder-only Transformer?",
            "为什么掩码 LM 适合仅编码器的 Transformer？",
            right(
                "its attention is bidirectional: a blank sees both sides",
                "它的注意力是双向的：空位能看到两侧",
            ),
            wrong(
                "its causal mask hides the masked tokens from the rest",
                "它的因果掩码把被遮盖的词对其余位置藏起来",
                "An encoder has no causal mask; hiding is done by [MASK] in the input.",
                "编码器没有因果掩码；遮盖靠的是输入里的 [MASK]。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "it generates the masked tokens one after another",
                "它会一个接一个地生成被遮盖的词",
                "An encoder predicts every masked position at once, from the full context; it does not generate.",
                "编码器从完整上下文中一次性预测所有被遮盖的位置；它不做逐词生成。",
                "mlm-for-open-generation",
            ),
        ),
        ask(
            "Why does T5's span corruption go with an encoder-decoder?",
            "为什么 T5 的片段破坏要配编码器-解码器？",
            right(
                "the encoder reads the corrupted text; the decoder writes the spans",
                "编码器读破坏后的文本；解码器写出缺失的片段",
            ),
            wrong(
                "the encoder must read the corrupted input left to right",
                "编码器必须从左到右地读破坏后的输入",
                "The encoder reads the input in both directions.",
                "编码器是双向地读输入的。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "the target is as long as the input, one token per position",
                "目标和输入一样长，每个位置一个 token",
                "The target holds only the sentinels and the hidden spans: usually much shorter.",
                "目标只含哨兵和被遮盖的片段：通常短得多。",
                "span-for-single-tokens",
            ),
        ),
        ask(
            "A decoder-only model is trained with next-token labels but no causal mask. What goes wrong?",
            "一个仅解码器模型用“下一个词”做标签训练，却没有加因果掩码。会出什么问题？",
            right(
                "each position can read the token it must predict, so it learns to copy",
                "每个位置都能读到它要预测的词，于是学会了抄",
            ),
            wrong(
                "nothing: more context gives better predictions",
                "没问题：上下文越多，预测越好",
                "Here the extra context is the answer itself.",
                "这里多出来的上下文就是答案本身。",
                "causal-sees-future",
            ),
            wrong(
                "training gets slower but learns the same thing",
                "训练会变慢，但学到的东西一样",
                "It learns something else: to read the next token instead of predicting it.",
                "它学到的是另一回事：直接读下一个词，而不是预测它。",
                "causal-sees-future",
            ),
        ),
        ask(
            "Which model is an encoder-only Transformer pretrained with masked LM?",
            "哪个模型是用掩码 LM 预训练的仅编码器 Transformer？",
            right("BERT", "BERT"),
            wrong(
                "GPT-2",
                "GPT-2",
                "GPT-2 is decoder-only and trained with causal LM.",
                "GPT-2 是仅解码器模型，用因果 LM 训练。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "T5",
                "T5",
                "T5 is an encoder-decoder trained with span corruption.",
                "T5 是编码器-解码器模型，用片段破坏训练。",
                "objective-architecture-mismatch",
            ),
        ),
        ask(
            "Which model is an encoder-decoder pretrained by repairing hidden spans?",
            "哪个模型是靠修复被遮住的片段来预训练的编码器-解码器？",
            right("T5", "T5"),
            wrong(
                "GPT-3",
                "GPT-3",
                "GPT-3 is decoder-only and trained with causal LM.",
                "GPT-3 是仅解码器模型，用因果 LM 训练。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "BERT",
                "BERT",
                "BERT is encoder-only: it fills single blanks and writes no separate output.",
                "BERT 是仅编码器模型：它填单个空，不写单独的输出。",
                "objective-architecture-mismatch",
            ),
        ),
        ask(
            "Is each objective tied to exactly one architecture?",
            "每种训练目标都只能配一种架构吗？",
            right(
                "usually paired, but T5 and UL2 also trained other pairings",
                "通常是配对的，但 T5 和 UL2 也试过别的搭配",
            ),
            wrong(
                "yes: an objective can run on its own architecture and no other",
                "是的：一种目标只能在它自己的架构上训练",
                "The pairing is the natural fit, not a law.",
                "这种配对是最自然的搭配，而不是定律。",
                "pairing-is-fixed",
            ),
            wrong(
                "no: the architecture has nothing to do with the objective",
                "不是：架构和目标毫无关系",
                "What each position may see must suit what the objective asks it to predict.",
                "每个位置能看到什么，必须和目标要它预测什么相配。",
                "objective-architecture-mismatch",
            ),
        ),
        ask(
            "Why does a decoder-only causal LM need no change between training and generation?",
            "为什么仅解码器的因果 LM 在训练和生成之间不需要任何改动？",
            right(
                "it looks only to the left, in training as in generation",
                "它只看左边，训练时和生成时都一样",
            ),
            wrong(
                "it sees the whole sentence in both, the future included",
                "两种情况下它都能看到整句话，包括未来",
                "No decoder position sees the future: there is none yet when generating.",
                "解码器的位置从不看未来：生成时未来还不存在。",
                "causal-sees-future",
            ),
            wrong(
                "a fine-tuning stage adapts it to generation afterwards",
                "之后会有一个微调阶段让它适应生成",
                "No adaptation is needed: the training task already is generation.",
                "不需要适应：训练任务本身就是生成。",
                "fine-tuning-fixes-everything",
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
        ask(
            "You want a strong summarisation model. Which pretraining objective would you lean towards?",
            "你想要一个很强的摘要模型，会更偏向哪类预训练目标？",
            right(
                "span corruption / denoising (text to text)",
                "片段破坏 / 去噪（文本到文本）",
                L(
                    "Right: recovering missing spans trains mapping an input text to an output text, like a summary.",
                    "正确：恢复缺失片段练的就是把输入文本映射成输出文本，和摘要一样。",
                ),
            ),
            wrong(
                "masked LM on its own",
                "只用掩码 LM（填单个空）",
                "Masked LM trains filling single blanks, not writing a new text.",
                "掩码 LM 练的是填单个空，而不是写出一段新文本。",
                "mlm-for-open-generation",
            ),
            wrong(
                "it does not matter: fine-tuning decides",
                "无所谓：最后由微调说了算",
                "Pretraining sets a lasting bias that fine-tuning builds on.",
                "预训练定下的偏向会一直保留，微调是在它之上继续。",
                "fine-tuning-fixes-everything",
            ),
        ),
        ask(
            "For open-ended generation (stories, chat)?",
            "开放式生成（写故事、聊天）用哪种？",
            right(
                "causal LM",
                "因果 LM",
                L("Right: training and generating both go left to right.", "正确：训练和生成都是从左到右。"),
            ),
            wrong(
                "masked LM",
                "掩码 LM",
                "Masked LM relies on the right-hand context, which generation does not have.",
                "掩码 LM 依赖右侧上下文，而生成时并没有。",
                "mlm-for-open-generation",
            ),
            wrong(
                "next sentence prediction",
                "下一句预测（NSP）",
                "NSP classifies a sentence pair; it writes nothing.",
                "NSP 是给一对句子做分类，它什么也不写。",
                "nsp-is-generation",
            ),
        ),
        ask(
            "For named-entity recognition (a label for every token)?",
            "命名实体识别（给每个 token 一个标签）用哪种？",
            right(
                "masked LM",
                "掩码 LM",
                L(
                    "Right: every token's representation sees the words on both sides.",
                    "正确：每个 token 的表示都看到了两侧的词。",
                ),
            ),
            wrong(
                "causal LM, since it reads left to right",
                "因果 LM，因为它从左往右读",
                "A causal LM's token sees only its left; a token's label often depends on the words after it.",
                "因果 LM 里每个 token 只看到左边；而一个 token 的标签常常取决于它后面的词。",
                "clm-for-understanding-only",
            ),
            wrong(
                "any: after fine-tuning they are all the same",
                "哪个都行：微调之后都一样",
                "The objective shapes lasting strengths; fine-tuning does not level them.",
                "目标塑造了长期的强项；微调不会把它们拉平。",
                "fine-tuning-fixes-everything",
            ),
        ),
        ask(
            "For suggesting the next words as someone types?",
            "在别人打字时提示接下来的词，用哪种？",
            right(
                "causal LM",
                "因果 LM",
                L("Right: it is next-token prediction itself.", "正确：这本身就是预测下一个词。"),
            ),
            wrong(
                "masked LM, since it sees the whole text",
                "掩码 LM，因为它能看到整段文本",
                "While typing there is no right-hand text to see.",
                "打字时右边还没有文本可看。",
                "mlm-for-open-generation",
            ),
            wrong(
                "span corruption on single tokens",
                "只遮单个 token 的片段破坏",
                "Span corruption is built to repair runs of text inside a given text, not to continue it.",
                "片段破坏是为修复给定文本中间的连续片段而设计的，不是为了续写。",
                "span-for-single-tokens",
            ),
        ),
        ask(
            "For translation, pretrained before any parallel data is seen?",
            "做翻译、并且在见到任何平行语料之前先预训练，用哪种？",
            right(
                "a text-to-text denoising objective",
                "文本到文本的去噪目标",
                L(
                    "Right: it trains reading one text and writing another, the shape of translation.",
                    "正确：它练的是读一段文本、写另一段文本，正是翻译的形态。",
                ),
            ),
            wrong(
                "masked LM alone",
                "单用掩码 LM",
                "Masked LM fills blanks in place; it has no decoder to write a new text.",
                "掩码 LM 原地填空，没有解码器来写出新文本。",
                "mlm-for-open-generation",
            ),
            wrong(
                "none: pretraining needs parallel data",
                "不行：预训练需要平行语料",
                "Denoising needs only plain text: the corrupted text is the input, the original the target.",
                "去噪只需要普通文本：破坏后的文本是输入，原文就是目标。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "For Chinese word segmentation (a tag for every character: does a word begin here)?",
            "做中文分词（给每个字一个标签：这里是不是一个词的开头），用哪种？",
            right(
                "masked LM",
                "掩码 LM",
                L(
                    "Right: whether a word begins at a character often depends on the characters after it, "
                    "and every character's representation sees them.",
                    "正确：一个字是不是词的开头，常常取决于它后面的字，而掩码 LM 里每个字的表示都看得到它们。",
                ),
            ),
            wrong(
                "causal LM, since its last position has read the whole sentence",
                "因果 LM，因为它最后一个位置读过了整句话",
                "The last position has, but each character needs its own tag, and an early character's "
                "representation has not seen the characters after it.",
                "最后一个位置确实读过整句，可每个字都要打自己的标签，而靠前的字在表示里还没看到它后面的字。",
                "clm-for-understanding-only",
            ),
            wrong(
                "either: a tagging layer added in fine-tuning evens them out",
                "哪个都行：微调时加一层标注层就拉平了",
                "The layer reads the representations pretraining shaped; it cannot add the right-hand context.",
                "标注层读的是预训练塑造的表示；右侧的上下文它补不回来。",
                "fine-tuning-fixes-everything",
            ),
        ),
        ask(
            "For extracting an answer span from a passage (as in SQuAD)?",
            "从一段文章里抽取答案片段（像 SQuAD 那样）用哪种？",
            right(
                "masked LM",
                "掩码 LM",
                L(
                    "Right: each token is understood from both sides, which span extraction needs.",
                    "正确：每个 token 都结合了两侧的信息，抽取片段正需要这一点。",
                ),
            ),
            wrong(
                "causal LM, since the answer is read left to right",
                "因果 LM，因为答案是从左往右读的",
                "Where an answer starts and ends depends on words on both sides.",
                "答案从哪里开始、到哪里结束，取决于两侧的词。",
                "clm-for-understanding-only",
            ),
            wrong(
                "it does not matter once fine-tuned on SQuAD",
                "在 SQuAD 上微调过以后就无所谓了",
                "Fine-tuning builds on what pretraining practised.",
                "微调是在预训练练出的能力上继续。",
                "fine-tuning-fixes-everything",
            ),
        ),
        ask(
            "For a chatbot that writes long answers?",
            "做一个会写长回答的聊天机器人，用哪种？",
            right(
                "causal LM",
                "因果 LM",
                L(
                    "Right: a long answer is continuation, token by token.",
                    "正确：长回答就是一个词一个词地续写。",
                ),
            ),
            wrong(
                "masked LM, since it understands the question better",
                "掩码 LM，因为它更能读懂问题",
                "Understanding the question is half the job; the answer still has to be written left to right.",
                "读懂问题只是一半；回答仍然要从左到右写出来。",
                "mlm-for-open-generation",
            ),
            wrong(
                "an encoder trained with next sentence prediction",
                "用下一句预测训练的编码器",
                "NSP is a yes/no classification; it trains no writing.",
                "NSP 是是/否分类，不练写作。",
                "nsp-is-generation",
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
            "Does the task need to see the words after a position, or not yet have them?",
            "这个任务需要看到某个位置之后的词，还是那些词还不存在？",
        ),
    ),
)

MISCONCEPTIONS = choice_exercise(
    "concept-misconceptions",
    L("The three common misconceptions", "三个常见误区"),
    (
        ask(
            "Which statement is right?",
            "下面哪一句是对的？",
            right(
                "the pretraining objective gives the model a lasting bias",
                "预训练目标会给模型留下长期的能力偏向",
            ),
            wrong(
                "fine-tuning erases what the pretraining objective taught",
                "微调会抹掉预训练目标教给模型的东西",
                "Fine-tuning builds on pretraining; it does not start over.",
                "微调是在预训练的基础上继续，并不是从头来过。",
                "fine-tuning-fixes-everything",
            ),
            wrong(
                "masked LM is a more advanced objective than causal LM",
                "掩码 LM 是比因果 LM 更高级的目标",
                "They are designs for different routes, not levels.",
                "它们是针对不同路线的设计，不是等级。",
                "objectives-ranked",
            ),
            wrong(
                "knowing the names CLM, MLM and span corruption is what matters",
                "记住 CLM、MLM、片段破坏这些名字才是关键",
                "What matters is how inputs and labels are built.",
                "关键在于输入和标签是怎么构造的。",
                "names-without-labels",
            ),
        ),
        ask(
            "Is masked LM better than causal LM?",
            "掩码 LM 比因果 LM 更好吗？",
            right("neither: they suit different routes", "谈不上：它们适合不同的路线"),
            wrong(
                "yes: seeing both sides makes it the stronger one",
                "是：能看两侧，所以它更强",
                "Both sides do not help a model that must write left to right.",
                "对必须从左到右写的模型来说，看两侧帮不上忙。",
                "objectives-ranked",
            ),
            wrong(
                "no: the largest models use causal LM, so it wins",
                "不是：最大的模型都用因果 LM，所以它更好",
                "Popularity for generation is not a ranking of objectives.",
                "在生成上流行，并不代表目标有高下之分。",
                "objectives-ranked",
            ),
        ),
        ask(
            "What best shows that you understand an objective?",
            "怎样最能说明你理解了一个训练目标？",
            right("building its inputs and labels from a sentence", "能从一句话构造出它的输入和标签"),
            wrong(
                "knowing its acronym and which famous model uses it",
                "知道它的缩写和哪个著名模型在用",
                "A name says nothing about what the model practises.",
                "名字说明不了模型在练什么。",
                "names-without-labels",
            ),
            wrong(
                "knowing that fine-tuning comes after it",
                "知道它后面还有微调",
                "Fine-tuning comes after every objective; it explains none of them.",
                "每个目标之后都有微调；这解释不了任何一个目标。",
                "fine-tuning-fixes-everything",
            ),
        ),
        ask(
            "A team pretrains with masked LM, then fine-tunes for story writing: 'fine-tuning will sort it out'. Your view?",
            "一个团队用掩码 LM 预训练，再微调去写故事：“微调会解决的。”你怎么看？",
            right(
                "risky: the bias towards filling blanks stays",
                "有风险：偏向填空的能力会留下来",
            ),
            wrong(
                "fine: fine-tuning decides what a model is good at",
                "没问题：模型擅长什么由微调决定",
                "Fine-tuning adapts a model; it rarely overturns what pretraining practised for billions of tokens.",
                "微调是让模型适应，很难推翻预训练在几十亿个 token 上反复练出的东西。",
                "fine-tuning-fixes-everything",
            ),
            wrong(
                "fine: masked LM is the more advanced objective",
                "没问题：掩码 LM 是更高级的目标",
                "Neither objective is more advanced; this one simply practises something else.",
                "两种目标没有高下；只是这个目标练的是别的东西。",
                "objectives-ranked",
            ),
        ),
        ask(
            "'GPT: CLM. BERT: MLM. T5: span corruption. That is all I need.' What is missing?",
            "“GPT 用 CLM，BERT 用 MLM，T5 用片段破坏，记住这些就够了。”缺了什么？",
            right(
                "how each one builds its inputs and labels",
                "每种目标怎样构造输入和标签",
            ),
            wrong(
                "the year each of the three papers came out",
                "这三篇论文各是哪一年发表的",
                "Dates do not tell what the model is asked to predict.",
                "年份说明不了模型被要求预测什么。",
                "names-without-labels",
            ),
            wrong(
                "nothing: the names say what each one does",
                "没缺什么：名字已经说明了它们做什么",
                "A name is a label for an idea; the idea is in the inputs and labels.",
                "名字只是概念的标签；概念本身在输入和标签里。",
                "names-without-labels",
            ),
        ),
        ask(
            "Its labels are made automatically, so is a self-supervised objective neutral?",
            "自监督目标的标签是自动造出来的，那它是“中立”的吗？",
            right(
                "no: the objective itself favours some abilities",
                "不是：目标本身就偏向某些能力",
            ),
            wrong(
                "yes: labels nobody chose carry no preference",
                "是：没人挑选的标签不带任何偏好",
                "Someone chose the objective: next token, blanks or spans, and that choice is the preference.",
                "目标是有人选的：下一个词、填空还是片段，这个选择本身就是偏好。",
                "objective-is-neutral",
            ),
            wrong(
                "yes: any preference comes from the data alone",
                "是：偏好只来自数据",
                "The same data trains different abilities under different objectives.",
                "同样的数据，换一个目标就练出不同的能力。",
                "objective-is-neutral",
            ),
        ),
        ask(
            "Why did the BERT and GPT lines go different ways?",
            "为什么 BERT 和 GPT 两条路线分道扬镳？",
            right(
                "their objectives trained different skills: blanks vs continuation",
                "它们的目标练出不同的能力：填空与续写",
            ),
            wrong(
                "GPT was trained on more data, nothing else differed",
                "GPT 用的数据更多，其他都一样",
                "The objectives differed, and with them what each model practised.",
                "两者的目标不同，各自练的东西也就不同。",
                "objective-is-neutral",
            ),
            wrong(
                "one of the two objectives is simply better",
                "两个目标里有一个就是更好",
                "They are designs for different routes, not a ranking.",
                "它们是针对不同路线的设计，不是排名。",
                "objectives-ranked",
            ),
        ),
        ask(
            "Which comparison of a masked LM and a causal LM is fair?",
            "比较掩码 LM 和因果 LM，哪种比法是公平的？",
            right(
                "on the kinds of task each objective practises",
                "在各自目标所练的任务类型上比",
            ),
            wrong(
                "rank both once on a single benchmark",
                "在一个基准上排一次名",
                "One benchmark favours one route; it does not rank objectives.",
                "一个基准只偏向一条路线，排不出目标的高下。",
                "objectives-ranked",
            ),
            wrong(
                "after fine-tuning, when pretraining no longer counts",
                "等微调之后再比，那时预训练已经不重要了",
                "Pretraining still counts after fine-tuning.",
                "微调之后，预训练依然起作用。",
                "fine-tuning-fixes-everything",
            ),
        ),
    ),
    (
        L(
            "Think of pretraining as the kind of exercise a student practises every day.",
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
        ask(
            "Why does BERT turn only 80 % of the selected tokens into [MASK], 10 % into a random token and leave 10 % as they are?",
            "为什么 BERT 只把 80% 的被选中 token 换成 [MASK]，10% 换成随机词，10% 保持不变？",
            right(
                "[MASK] is absent in fine-tuning, so real tokens must be learnt too",
                "微调时没有 [MASK]，所以真实 token 也得学好",
            ),
            wrong(
                "to add noise to the inputs, as a regulariser and for no other reason",
                "给输入加噪声，起正则化作用，没有别的原因",
                "The point is the mismatch between pretraining and fine-tuning, not noise for its own sake.",
                "关键是预训练与微调之间的不匹配，而不是为了加噪声本身。",
                "random-as-regularisation-only",
            ),
            wrong(
                "so that fewer positions have to enter the loss",
                "为了让参与损失的位置更少",
                "Every selected position enters the loss, however it was treated.",
                "所有被选中的位置都参与损失，不论它被怎样处理。",
                "loss-omits-random",
            ),
        ),
        ask(
            "A selected token was left unchanged. Is it in the loss?",
            "一个被选中的 token 保持不变。它参与损失吗？",
            right("yes, its label is the token itself", "参与，标签就是它自己"),
            wrong(
                "no, it did not change, so there is nothing to learn",
                "不参与，它没变，就没什么可学",
                "The model must confirm a token it cannot know was kept.",
                "模型要学会确认这个词——它无从得知这个词是被保留的。",
                "loss-omits-kept",
            ),
            wrong(
                "only when it is the [CLS] token",
                "只有它是 [CLS] 时才参与",
                "[CLS] is not selected at all.",
                "[CLS] 根本不会被选中。",
                "specials-selected",
            ),
        ),
        ask(
            "What would go wrong if BERT replaced every selected token with [MASK]?",
            "如果 BERT 把每个被选中的 token 都换成 [MASK]，会出什么问题？",
            right(
                "it would learn little about real tokens, the only kind fine-tuning shows it",
                "它对真实 token 学得少，而微调时全是真实 token",
            ),
            wrong(
                "nothing: [MASK] is the clearest training signal",
                "没问题：[MASK] 是最清楚的训练信号",
                "Clear, but it does not appear after pretraining.",
                "清楚，但预训练之后它就不会再出现。",
                "mask-only-training",
            ),
            wrong(
                "the loss could not be computed any more",
                "损失就再也没法计算了",
                "The loss works the same way; the labels are the original tokens.",
                "损失照样计算；标签还是原始词。",
                "mask-only-training",
            ),
        ),
        ask(
            "A selected token was replaced by a random word. What is its label?",
            "一个被选中的 token 被换成了随机词。它的标签是什么？",
            right("the original token", "原来的那个 token"),
            wrong(
                "the random word",
                "那个随机词",
                "The label asks what was really there.",
                "标签回答的是“这里原本是什么”。",
                "label-is-replacement",
            ),
            wrong(
                "-100: a replaced token is left out of the loss",
                "-100：被替换的 token 不参与损失",
                "It was selected, so it is in the loss like every selected token.",
                "它被选中了，和每个被选中的 token 一样参与损失。",
                "loss-omits-random",
            ),
        ),
        ask(
            "What does the model see at a position whose token was replaced by a random word?",
            "一个位置的 token 被换成了随机词，模型在这个位置看到的是什么？",
            right("the random word, with no sign that it was replaced", "那个随机词，看不出它被换过"),
            wrong(
                "[MASK], marking the replaced position",
                "[MASK]，用来标出被替换的位置",
                "Only the [MASK] share shows [MASK]; a random replacement shows the random word.",
                "只有换成 [MASK] 的那部分才显示 [MASK]；随机替换显示的是随机词。",
                "random-shown-as-mask",
            ),
            wrong(
                "the original token, since the change is only in the label",
                "原来的 token，因为改动只发生在标签里",
                "The input does change there: the random word stands in the original's place.",
                "输入在那里确实变了：随机词占了原词的位置。",
                "random-not-applied",
            ),
        ),
        ask(
            "Out of 1000 selected tokens, about how many become [MASK]?",
            "1000 个被选中的 token 里，大约有多少个变成 [MASK]？",
            right("about 800", "约 800 个"),
            wrong(
                "about 120, 80 % of 15 %",
                "约 120 个，即 15% 的 80%",
                "The 15 % was spent choosing these 1000; 80/10/10 splits the selected tokens.",
                "15% 已经用在选出这 1000 个上了；80/10/10 划分的是被选中的 token。",
                "split-of-all-tokens",
            ),
            wrong(
                "about 900, the masked plus the kept ones",
                "约 900 个，变 [MASK] 的加上保持不变的",
                "Kept tokens stay as they are in the input; they do not show [MASK].",
                "保持不变的 token 在输入里仍是原词，不显示 [MASK]。",
                "kept-shown-as-mask",
            ),
        ),
        ask(
            "Why can the model not simply copy the input at a position it sees unchanged?",
            "模型在一个看起来没变的位置上，为什么不能直接照抄输入？",
            right(
                "it cannot tell which visible tokens were kept and which replaced",
                "它分不清哪些可见 token 是保留的、哪些是被换过的",
            ),
            wrong(
                "unchanged positions are left out of the loss",
                "没变的位置不参与损失",
                "A selected token that was kept is in the loss.",
                "被选中但保持不变的 token 参与损失。",
                "loss-omits-kept",
            ),
            wrong(
                "[CLS] tells the model which tokens were kept",
                "[CLS] 会告诉模型哪些 token 被保留了",
                "[CLS] is not selected and carries no such signal.",
                "[CLS] 不会被选中，也不带这种信号。",
                "specials-selected",
            ),
        ),
        ask(
            "What does the 10 % random replacement add to what the model learns?",
            "10% 的随机替换让模型多学到了什么？",
            right(
                "checking every visible token, since any may be wrong",
                "检查每个可见的 token，因为任何一个都可能是错的",
            ),
            wrong(
                "nothing: it is noise added to regularise",
                "什么也没有：它只是用来正则化的噪声",
                "It forces a representation of every real token, which fine-tuning relies on.",
                "它迫使模型为每个真实 token 学好表示，而微调正依赖这一点。",
                "random-as-regularisation-only",
            ),
            wrong(
                "it teaches the model to output random words",
                "它教模型输出随机词",
                "The label is the original token; the model learns to undo the replacement.",
                "标签是原始词；模型学的是把替换还原回去。",
                "label-is-replacement",
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
        ask(
            "In prefix LM, which positions may a token inside the prefix attend to?",
            "在前缀 LM 中，前缀里的一个 token 能看到哪些位置？",
            right("every prefix position, in both directions", "前缀里的所有位置，两个方向都可以"),
            wrong(
                "the earlier prefix positions and itself",
                "前缀里更早的位置和它自己",
                "That is plain causal LM; the prefix is bidirectional.",
                "那是普通的因果 LM；前缀内部是双向的。",
                "prefix-lm-is-causal",
            ),
            wrong(
                "every position, the continuation included",
                "所有位置，包括续写部分",
                "The continuation stays hidden from the prefix: it is what must be predicted.",
                "续写部分对前缀是隐藏的：那正是要预测的内容。",
                "prefix-fully-bidirectional",
            ),
        ),
        ask(
            "Where does prefix LM take its loss?",
            "前缀 LM 在哪里计算损失？",
            right("on the continuation after the prefix", "在前缀之后的续写部分"),
            wrong(
                "on every position of the sequence",
                "在序列的每个位置上",
                "Prefix tokens are visible to the whole prefix: predicting them would be copying.",
                "前缀 token 对整个前缀可见：预测它们等于抄答案。",
                "prefix-loss-everywhere",
            ),
            wrong(
                "on the prefix, the part it reads",
                "在前缀上，也就是它读的那部分",
                "The prefix is the given context; the continuation is what is learnt.",
                "前缀是给定的上下文；要学的是续写部分。",
                "prefix-loss-everywhere",
            ),
        ),
        ask(
            "Which tasks suit prefix LM?",
            "前缀 LM 适合什么任务？",
            right(
                "reading a given context, then writing a continuation",
                "先读懂给定的上下文，再写出续写",
            ),
            wrong(
                "classification, with no text written",
                "分类，不写任何文本",
                "Its causal part writes text; classification alone would not need it.",
                "它的因果部分是用来写文本的；单纯分类用不上。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "free generation from no context at all",
                "完全没有上下文的自由生成",
                "The bidirectional prefix is there to read a given context.",
                "双向的前缀就是用来读给定上下文的。",
                "prefix-lm-is-causal",
            ),
        ),
        ask(
            "A position after the prefix (in the continuation) may attend to?",
            "前缀之后（续写部分）的一个位置能看到哪些位置？",
            right(
                "the whole prefix and the continuation up to itself",
                "整个前缀，加上续写中到它为止的部分",
            ),
            wrong(
                "every position, the later ones included",
                "所有位置，包括后面的位置",
                "After the prefix, positions are causal again: the future is what they predict.",
                "前缀之后的位置又是因果的：未来正是它们要预测的。",
                "prefix-fully-bidirectional",
            ),
            wrong(
                "itself and the continuation before it",
                "它自己和它之前的续写部分",
                "Every position also sees the whole prefix.",
                "每个位置还都能看到整个前缀。",
                "prefix-ignored",
            ),
        ),
        ask(
            "With a prefix of length 0, prefix LM is the same as?",
            "前缀长度为 0 时，前缀 LM 等于什么？",
            right("causal LM", "因果 LM"),
            wrong(
                "masked LM",
                "掩码 LM",
                "With no prefix nothing is bidirectional: every position is causal.",
                "没有前缀就没有双向的部分：每个位置都是因果的。",
                "prefix-fully-bidirectional",
            ),
            wrong(
                "span corruption",
                "片段破坏",
                "Nothing is hidden and no sentinel appears: it is plain next-token prediction.",
                "没有遮盖，也没有哨兵：这就是普通的下一个词预测。",
                "objective-architecture-mismatch",
            ),
        ),
        ask(
            "Translation as prefix LM: the prefix is the source sentence, the continuation its translation. Why a bidirectional prefix?",
            "把翻译当作前缀 LM：前缀是原句，续写是译文。为什么前缀要双向？",
            right(
                "each source word is read with the whole source sentence",
                "原句里的每个词都结合整个原句来读",
            ),
            wrong(
                "so that the source can look at the translation",
                "让原句里的词也能看到译文",
                "The translation stays hidden from the source; it is what is predicted.",
                "译文对原句是隐藏的；它正是要预测的内容。",
                "prefix-fully-bidirectional",
            ),
            wrong(
                "so that the loss covers the source sentence too",
                "让损失也覆盖原句里的每个词",
                "The source is given, so no loss is taken on it.",
                "原句是给定的，所以不在它上面计算损失。",
                "prefix-loss-everywhere",
            ),
        ),
        ask(
            "Where does a prefix-LM mask with prefix P differ from the causal mask?",
            "前缀长度为 P 的前缀 LM 掩码和因果掩码有什么不同？",
            right(
                "rows inside the prefix may also look right, up to P−1",
                "前缀内的行还能往右看，直到 P−1",
            ),
            wrong(
                "every row may look at every column",
                "每一行都能看每一列",
                "That is the bidirectional mask; after the prefix the mask is causal.",
                "那是双向掩码；前缀之后的部分仍是因果的。",
                "prefix-fully-bidirectional",
            ),
            wrong(
                "nowhere: the two masks are the same",
                "没有不同：两个掩码一样",
                "Inside the prefix, positions see later prefix positions too.",
                "在前缀内部，位置还能看到前缀里更靠后的位置。",
                "prefix-ignored",
            ),
        ),
        ask(
            "What does a prefix LM run on?",
            "前缀 LM 用什么架构来跑？",
            right(
                "a decoder-only stack with a different mask",
                "仅解码器的结构，换一个掩码",
            ),
            wrong(
                "an encoder-only stack, since the prefix is bidirectional",
                "仅编码器的结构，因为前缀是双向的",
                "Only the prefix is bidirectional; the continuation is generated causally.",
                "只有前缀是双向的；续写部分仍是因果地生成的。",
                "prefix-fully-bidirectional",
            ),
            wrong(
                "a separate encoder for the prefix and a decoder for the rest",
                "前缀用单独的编码器，其余用解码器",
                "That is the encoder-decoder; prefix LM does it with one stack and a mask.",
                "那是编码器-解码器；前缀 LM 用一个结构加一个掩码就做到了。",
                "objective-architecture-mismatch",
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
        ask(
            "Where do the labels of language-model pretraining come from?",
            "语言模型预训练的标签从哪里来？",
            right("from the text itself", "来自文本本身"),
            wrong(
                "from human annotators",
                "来自人工标注",
                "No annotation: the next or hidden token is already in the text.",
                "不需要标注：下一个词或被遮住的词本来就在文本里。",
                "self-supervision-needs-labels",
            ),
            wrong(
                "from a smaller model that labels the text",
                "来自给文本打标签的小模型",
                "That would be distillation; self-supervision needs no labeller.",
                "那是蒸馏；自监督不需要打标签的人或模型。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "Why can pretraining use far more data than supervised learning?",
            "为什么预训练能用的数据比监督学习多得多？",
            right("any text makes its own targets", "任何文本都能自己造出目标"),
            wrong(
                "it needs fewer human labels per sentence",
                "每句话需要的人工标注更少",
                "It needs none at all.",
                "它根本不需要人工标注。",
                "self-supervision-needs-labels",
            ),
            wrong(
                "its data is labelled once and then reused",
                "它的数据标注一次之后反复使用",
                "Nothing is labelled by hand, once or more.",
                "没有任何数据需要人工标注，一次也不需要。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "In '今天天气很[ ]', what is the training target?",
            "在“今天天气很[ ]”里，训练目标是什么？",
            right("the hidden character, 好", "被遮住的那个字：好"),
            wrong(
                "a rating of the sentence given by a person",
                "由人给这句话打的分",
                "The target is already in the text; nobody rates it.",
                "目标就在文本里，不需要有人打分。",
                "self-supervision-needs-labels",
            ),
            wrong(
                "the [MASK] symbol itself",
                "[MASK] 这个符号本身",
                "The target is what was hidden, not the symbol that hides it.",
                "目标是被遮住的内容，而不是遮住它的符号。",
                "label-is-mask",
            ),
        ),
        ask(
            "In causal LM, what is the label at position t?",
            "在因果 LM 里，位置 t 的标签是什么？",
            right("the next token, the one at position t+1", "下一个，即位置 t+1 上的 token"),
            wrong(
                "the token standing at position t itself",
                "位置 t 上的 token 本身",
                "That token is the input there; the label is the one after it.",
                "那个 token 是这里的输入；标签是它后面的那个。",
                "labels-not-shifted",
            ),
            wrong(
                "a class an annotator chose for the sentence",
                "标注员给这整句话选定的类别",
                "The label comes from the sentence itself.",
                "标签来自这句话本身。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "Which of these is NOT self-supervised?",
            "下面哪一个“不是”自监督？",
            right("classifying reviews labelled by people", "对人工标注过的评论做分类"),
            wrong(
                "predicting the next word of a text",
                "预测文本的下一个词",
                "The next word is in the text: that is self-supervised.",
                "下一个词就在文本里：这是自监督。",
                "self-supervision-needs-labels",
            ),
            wrong(
                "restoring words hidden in a text",
                "还原文本里被遮住的词",
                "The hidden words are in the text: that is self-supervised.",
                "被遮住的词就在文本里：这是自监督。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "With no human labels, is there still a loss to minimise?",
            "没有人工标签，还有要最小化的损失吗？",
            right("yes: the targets come from the data", "有：目标来自数据本身"),
            wrong(
                "no: without labels there is nothing to compare with",
                "没有：没有标签就没有可比较的东西",
                "The hidden or next token is the thing to compare with.",
                "被遮住的词或下一个词就是比较的对象。",
                "self-supervision-needs-labels",
            ),
            wrong(
                "only once a person has checked the outputs",
                "只有在有人检查过输出之后才有",
                "Cross-entropy against the text's own tokens needs no person.",
                "对着文本自己的 token 算交叉熵，不需要任何人。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "How does a causal language model give the probability of a whole text w1…wT?",
            "因果语言模型怎样给出整段文本 w1…wT 的概率？",
            right(
                "as the product of P(w_t | w_<t) over t",
                "把各个 P(w_t | w_<t) 相乘",
            ),
            wrong(
                "as the product of each word's own frequency",
                "把每个词各自出现的频率直接乘起来",
                "Each factor depends on the words before it.",
                "每个因子都依赖它前面的词。",
                "tokens-independent",
            ),
            wrong(
                "from a label a person gave the text",
                "由人给这段文本打的标签得到",
                "The probability comes from the model's own predictions, token by token.",
                "概率来自模型自己逐个 token 的预测。",
                "self-supervision-needs-labels",
            ),
        ),
        ask(
            "Does a masked LM give the probability of a whole sentence directly?",
            "掩码 LM 能直接给出一整句话的概率吗？",
            right(
                "no: it predicts blanks from the rest, not a chain",
                "不能：它根据其余部分预测空位，不是一条链",
            ),
            wrong(
                "yes: multiply its predictions at the [MASK] positions",
                "能：把它在 [MASK] 位置上的预测乘起来",
                "Those predictions each condition on everything else; they do not multiply into P(text).",
                "这些预测各自以其余所有词为条件，乘起来并不是整句话的概率。",
                "mlm-sequence-probability",
            ),
            wrong(
                "yes: it computes the same thing as a causal LM",
                "能：它和因果 LM 算的是同一个东西",
                "A causal LM's factors follow the chain rule; a masked LM's do not.",
                "因果 LM 的因子符合链式法则；掩码 LM 的不符合。",
                "mlm-sequence-probability",
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

NSP = choice_exercise(
    "concept-nsp",
    L("Next sentence prediction (NSP)", "下一句预测（NSP）"),
    (
        ask(
            "What does BERT's next sentence prediction ask?",
            "BERT 的下一句预测（NSP）问的是什么？",
            right("is sentence B the one that followed A?", "句子 B 是不是紧跟在 A 后面的那句？"),
            wrong(
                "write the sentence that comes after A",
                "写出 A 后面的那句话",
                "NSP writes nothing; it answers yes or no.",
                "NSP 什么也不写，只回答是或否。",
                "nsp-is-generation",
            ),
            wrong(
                "predict the masked words of sentence B",
                "预测句子 B 里被遮住的词",
                "That is the masked-LM loss; NSP is a separate yes/no question.",
                "那是掩码 LM 的损失；NSP 是另一个是/否问题。",
                "nsp-is-mlm",
            ),
        ),
        ask(
            "Where do NSP's IsNext / NotNext labels come from?",
            "NSP 的 IsNext / NotNext 标签从哪里来？",
            right(
                "the corpus: half real next sentences, half random",
                "语料本身：一半是真正的下一句，一半是随机的句子",
            ),
            wrong(
                "annotators judge whether B follows A",
                "标注员判断 B 是否接在 A 后面",
                "No one judges: the pairs are cut from the corpus.",
                "不需要人判断：句对是从语料里切出来的。",
                "nsp-needs-labels",
            ),
            wrong(
                "a separate model scores how well B fits A",
                "由另一个模型给 B 接 A 的通顺程度打分",
                "The label is known from where B was taken.",
                "B 从哪里取来，标签就已经知道了。",
                "nsp-needs-labels",
            ),
        ),
        ask(
            "Which of BERT's outputs makes the NSP decision?",
            "BERT 用哪个输出来做 NSP 判断？",
            right("the final vector of [CLS]", "[CLS] 的最终向量"),
            wrong(
                "the vectors at the [MASK] positions",
                "[MASK] 位置上的向量",
                "Those vectors serve the masked-LM loss, not NSP.",
                "那些向量服务于掩码 LM 的损失，不是 NSP。",
                "nsp-is-mlm",
            ),
            wrong(
                "a decoder that writes IsNext or NotNext",
                "一个写出 IsNext 或 NotNext 的解码器",
                "BERT has no decoder: it writes no tokens at all.",
                "BERT 没有解码器，根本不写出 token。",
                "nsp-is-generation",
            ),
        ),
        ask(
            "What did RoBERTa find when it removed NSP?",
            "RoBERTa 去掉 NSP 后发现了什么？",
            right(
                "results matched or slightly improved",
                "效果持平或略有提升",
            ),
            wrong(
                "every task got clearly worse",
                "每个任务都明显变差",
                "Trained on long contiguous text, RoBERTa did as well or better without it.",
                "在长段连续文本上训练时，RoBERTa 去掉 NSP 效果持平甚至更好。",
                "nsp-still-needed",
            ),
            wrong(
                "NSP mattered more than masked LM",
                "NSP 比掩码 LM 更重要",
                "RoBERTa kept masked LM and dropped NSP.",
                "RoBERTa 保留了掩码 LM，去掉了 NSP。",
                "nsp-still-needed",
            ),
        ),
        ask(
            "Why can NSP be too easy to be useful?",
            "为什么 NSP 可能太容易、学不到多少？",
            right(
                "a random B is often off-topic, so the topic gives it away",
                "随机的 B 常常跑题，看主题就能猜出来",
            ),
            wrong(
                "B is always the real next sentence",
                "B 总是真正的下一句",
                "Half the time B is a random sentence.",
                "一半情况下 B 是随机抽的句子。",
                "nsp-needs-labels",
            ),
            wrong(
                "the label is written into the [CLS] token",
                "标签被写进了 [CLS] 这个 token",
                "The input carries no label; [CLS] is the same in every example.",
                "输入里不带标签；[CLS] 在每个样本里都一样。",
                "nsp-needs-labels",
            ),
        ),
        ask(
            "BERT's ablation found NSP helped; RoBERTa found it did not. What differed?",
            "BERT 的消融实验说 NSP 有用，RoBERTa 说没用。差别在哪里？",
            right(
                "RoBERTa trained on long contiguous text, not short pairs",
                "RoBERTa 用长段连续文本训练，而不是短句对",
            ),
            wrong(
                "RoBERTa added a decoder to BERT",
                "RoBERTa 给 BERT 加了一个解码器",
                "RoBERTa is still encoder-only.",
                "RoBERTa 仍然是仅编码器模型。",
                "objective-architecture-mismatch",
            ),
            wrong(
                "RoBERTa had NSP labels checked by people",
                "RoBERTa 请人检查了 NSP 的标签",
                "NSP labels come from the corpus; no one checks them.",
                "NSP 标签来自语料，没人去检查。",
                "nsp-needs-labels",
            ),
        ),
        ask(
            "Is NSP a language-modelling objective like masked LM?",
            "NSP 和掩码 LM 一样是语言建模目标吗？",
            right(
                "no: it classifies a pair and predicts no tokens",
                "不是：它给句对分类，不预测任何 token",
            ),
            wrong(
                "yes: it predicts the next sentence token by token",
                "是：它逐个 token 地预测下一句",
                "It predicts one yes/no label per pair.",
                "它对每个句对只预测一个是/否标签。",
                "nsp-is-generation",
            ),
            wrong(
                "yes: it is causal LM over two sentences",
                "是：它是两句话上的因果 LM",
                "Nothing is predicted token by token in NSP.",
                "NSP 里没有任何逐 token 的预测。",
                "nsp-is-generation",
            ),
        ),
        ask(
            "What did ALBERT put in NSP's place?",
            "ALBERT 用什么取代了 NSP？",
            right(
                "sentence-order prediction: are A and B in order?",
                "句序预测：A 和 B 的顺序对不对？",
            ),
            wrong(
                "nothing: it kept NSP exactly as BERT had it",
                "什么也没换：原样保留了 BERT 的 NSP",
                "ALBERT replaced it, since NSP could be solved by topic alone.",
                "ALBERT 换掉了它，因为 NSP 光靠主题就能答对。",
                "nsp-still-needed",
            ),
            wrong(
                "generating the next sentence word by word",
                "逐词生成下一句",
                "ALBERT is an encoder; its replacement is still a yes/no question.",
                "ALBERT 是编码器；它的替代任务仍是一个是/否问题。",
                "nsp-is-generation",
            ),
        ),
    ),
    (
        L("NSP gives one answer per sentence pair.", "NSP 对每个句对只给出一个答案。"),
        L(
            "Where could a pair of sentences come from without anyone labelling it?",
            "不靠任何人标注，一对句子可以从哪里来？",
        ),
        L(
            "Compare what BERT and RoBERTa trained on, not only their losses.",
            "比较 BERT 和 RoBERTa 用什么数据训练，而不只是比较损失。",
        ),
    ),
)

EXERCISES = (ARCHITECTURE, TASKS, MISCONCEPTIONS, EIGHTY_TEN_TEN, PREFIX, SELF_SUPERVISION, NSP)
