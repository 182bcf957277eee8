"""Packing: how a corpus of documents becomes fixed-length training windows.

Pretraining does not feed one document per row padded to the longest: documents are
tokenised, each followed by an end-of-document token, concatenated into one stream, and
the stream is cut into windows of L tokens. A document longer than what is left of a
window runs on into the next window; a window can hold the end of one document, its
separator and the start of the next.

* GPT-2 / nanoGPT: each document's ids get the end-of-text token appended
  (``ids.append(enc.eot_token)`` in nanoGPT's ``data/openwebtext/prepare.py``), all
  documents go into one array, and training reads windows of L + 1 tokens at random
  offsets (x = tokens[i : i + L], y = tokens[i + 1 : i + 1 + L]).
* Hugging Face's ``run_clm.py`` (``group_texts``): the tokenised texts of a batch are
  concatenated, the remainder shorter than ``block_size`` is dropped, the rest cut into
  blocks; ``labels`` is a copy of ``input_ids`` and the model shifts inside the loss. (The
  GPT-2 tokenizer adds no end-of-text token there: the separator is the caller's to add.)
* RoBERTa's FULL-SENTENCES (Liu et al., 2019, Section 4.2): inputs may cross document
  boundaries, with an extra separator token between documents.

Inside a packed window the causal-LM labels still shift by one: position t is trained to
predict the token at t + 1 of the same window, whichever document it comes from. So the
last token of a document is trained to predict the separator, and the separator to
predict the first token of the next document (GPT-style packing keeps that label: the
model learns that a new, unrelated text starts after the separator). The window's last
position has no label here (-100), as in ``group_texts``: the next window is another row.

Everything is a torch computation on ids; a seed, when given, shuffles the order of the
documents before they are concatenated (a ``torch.Generator``, the same on every machine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from engine.clm import IGNORE_INDEX, same_length_labels
from engine.errors import InvalidInput
from engine.tokens import EOS, Vocab, split_text

MIN_WINDOW, MAX_WINDOW = 2, 16  # a window is one row of the figure: 16 positions fit 80 columns
MAX_TOKENS = 512  # the whole corpus, separators included: a figure's worth, refused above
DOCUMENT_MARK = "|"  # between documents in a text given to ``pack_text``


@dataclass(frozen=True)
class Packed:
    """A corpus packed into windows, position by position."""

    documents: list[list[str]]  # in packing order
    order: list[int]  # the given index of each packed document
    separator: str
    window: int
    windows: list[list[str]]  # W windows of ``window`` tokens
    labels: list[list[str | None]]  # per position, the token it is trained to predict (None: -100)
    document_of: list[list[int]]  # per position, which packed document it belongs to (-1: padding)
    dropped: list[str]  # the tail shorter than a window, dropped as group_texts drops it
    padded: int  # [PAD] tokens added to fill the last window instead (drop_last=False)

    @property
    def stream(self) -> list[str]:
        return [token for document in self.documents for token in (*document, self.separator)]

    def crossing(self) -> list[int]:
        """The packed documents that run from one window into the next."""
        found = []
        for index in range(len(self.documents)):
            rows = {w for w, row in enumerate(self.document_of) for d in row if d == index}
            if len(rows) > 1:
                found.append(index)
        return found


def split_documents(text: str) -> list[list[str]]:
    """Documents written in one line, separated by ``|``: each one split into tokens as the
    course splits text (words, or one token per Chinese character)."""
    parts = [part.strip() for part in text.split(DOCUMENT_MARK)]
    return [split_text(part) for part in parts if split_text(part)]


def pack_text(text: str, window: int, **options) -> Packed:
    return pack_documents(split_documents(text), window, **options)


def pack_documents(
    documents: Sequence[Sequence[str]],
    window: int,
    *,
    seed: int | None = None,
    drop_last: bool = True,
) -> Packed:
    """Concatenate ``documents``, each followed by ``</s>`` (GPT-2's end of text), and cut windows of ``window``
    tokens. ``seed`` shuffles the documents first; ``drop_last`` drops a tail shorter than a
    window (Hugging Face's ``group_texts``), else it is padded with [PAD] (no label there)."""
    if not MIN_WINDOW <= window <= MAX_WINDOW:
        raise InvalidInput(
            "window-out-of-range",
            window=window,
            low=MIN_WINDOW,
            high=MAX_WINDOW,
        )
    documents = [list(document) for document in documents if len(document)]
    total = sum(len(document) + 1 for document in documents)
    if total > MAX_TOKENS:
        raise InvalidInput(
            "corpus-too-long",
            n=total,
            limit=MAX_TOKENS,
        )
    if drop_last and total < window:
        raise InvalidInput(
            "sequence-too-short",
            n=total,
            need=window,
        )
    if not documents:
        raise InvalidInput("sequence-too-short", n=0, need=1)

    order = list(range(len(documents)))
    if seed is not None:
        order = torch.randperm(len(documents), generator=torch.Generator().manual_seed(seed)).tolist()
    packed_docs = [documents[index] for index in order]

    vocab = Vocab.from_tokens([token for document in packed_docs for token in document], n_sentinels=0)
    separator_id = vocab.add(EOS)
    with torch.inference_mode():
        pieces, owners = [], []
        for number, document in enumerate(packed_docs):
            pieces.append(torch.tensor([*vocab.encode(document), separator_id]))
            owners.append(torch.full((len(document) + 1,), number))
        stream, owner = torch.cat(pieces), torch.cat(owners)
        usable = (stream.numel() // window) * window
        padded = 0
        if not drop_last and usable < stream.numel():
            padded = usable + window - stream.numel()
            stream = torch.cat([stream, torch.full((padded,), vocab.pad_id)])
            owner = torch.cat([owner, torch.full((padded,), -1)])
            usable = stream.numel()
        ids = stream[:usable].view(-1, window)
        document_of = owner[:usable].view(-1, window)
        labels = same_length_labels(ids, attention_mask=(document_of >= 0).long())
    names = vocab.tokens
    dropped = [names[i] for i in stream[usable:].tolist()]
    return Packed(
        documents=packed_docs,
        order=order,
        separator=EOS,
        window=window,
        windows=[[names[i] for i in row] for row in ids.tolist()],
        labels=[[None if i == IGNORE_INDEX else names[i] for i in row] for row in labels.tolist()],
        document_of=document_of.tolist(),
        dropped=dropped,
        padded=padded,
    )


def document_mask(document_of: Sequence[int]) -> list[list[int]]:
    """One window's attention mask (1 = blocked, the course's convention) when attention is
    kept inside each document, as Llama 3 trains (a causal mask that also blocks every
    earlier document); plain GPT-style packing uses the causal mask alone."""
    owner = torch.tensor(list(document_of))
    n = owner.numel()
    position = torch.arange(n)
    blocked = (position[None, :] > position[:, None]) | (owner[None, :] != owner[:, None])
    return blocked.int().tolist()
