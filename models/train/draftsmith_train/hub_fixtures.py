"""Random-weight model repositories in the layouts real Hugging Face Hub repositories use, so that the
Hub code path (file choice from a listing, sessions, chat templates, caches) is tested against the
families writers choose, offline, with nothing but Debian's torch and onnx.

  cd models/train
  /usr/bin/python3 -m draftsmith_train.hub_fixtures --out ../../test/fixtures/hub
  /usr/bin/python3 -m draftsmith_train.hub_fixtures --real-size ../../.work/real-size [--models smollm2-135m]
  node check_hub_fixtures.cjs                      # transformers.js 4.3.1 loads and runs every layout

--out writes tiny models (a few MB in all) into OUT/fixtures/<name>/, one folder per real repository
it imitates, holding that repository's file names (config.json, generation_config.json, the tokenizer
files, onnx/*.onnx), plus OUT/MIRRORS.json (which repository each imitates, its files, sizes and sha256,
and how transformers.js loads each graph) and OUT/CHECKS.json (PyTorch's numbers for the same weights,
which check_hub_fixtures.cjs compares the graphs against). Everything is seeded: a rerun writes the
same bytes.

  GPT-2 (gpt2)          optimum's merged decoder: an If on use_cache_branch between the graph without past
                        (first step) and the one with it. fixtures/gpt2 has the older Xenova file names
                        (decoder_model_merged*, decoder_model*, decoder_with_past_model*), fixtures/gpt2-model
                        the merged decoder saved as onnx/model.onnx, fixtures/distilgpt2 the older export
                        without position_ids (positions counted from the past length inside the graph).
  Llama / Qwen2         grouped-query attention, rotary embeddings (rotate-half), RMSNorm in float32,
                        SwiGLU, tied embeddings; Qwen2 with q/k/v biases and a config vocab_size larger than
                        the tokenizer. onnx/model*.onnx take input_ids, attention_mask, position_ids and
                        past_key_values.{i}.key/value (empty on the first step) -> logits, present.{i}.*;
                        one Qwen repository's graphs also take num_logits_to_keep. dtypes: fp32, fp16
                        (float16 weights, caches and logits), q4 and q4f16 (com.microsoft MatMulNBits,
                        4-bit blocks of 32 or 16, symmetric), int8/uint8/q8 (DynamicQuantizeLinear +
                        MatMulInteger, as onnxruntime's quantize_dynamic writes them). Embedding tables
                        stay float in every variant.
  BART (bart)           distilbart-cnn's config and generation_config at a tiny size: encoder_model.onnx
                        and optimum's merged decoder_model_merged.onnx (export_peer.merge_decoders: the
                        encoder presents are placeholders on the cached branch), raw logits.
  BERT (bert)           all-MiniLM-L6-v2's layout for feature extraction: onnx/model*.onnx taking input_ids,
                        attention_mask, token_type_ids -> last_hidden_state; post-LN layers, erf GELU,
                        token-type embeddings; a WordPiece tokenizer.json (BertNormalizer, BertPreTokenizer,
                        [CLS] ... [SEP]) and vocab.txt. Its CHECKS.json entry also holds BERTScore as the
                        bert_score package computes it (greedy_cos_idf, get_idf_dict; mirrored here, since
                        that package is not installed) for a few pairs, idf off and on.

  The other families (qwen3, mistral, phi3, gemma, gemma2, gemma3_text, smollm3, olmo2, granite)
                        one repository each, fp32 and q4: the real config fields, special tokens, chat
                        template and generation settings (hub_family_specs.py), the Llama graph with the
                        family's I/O (head_dim apart from hidden / heads, NoPE layers, untied output layers
                        where the family has them); SentencePiece-style tokenizers for Mistral, Phi-3, Gemma.

Tokenizers of GPT-2, Llama, Qwen2 and BART are byte-level BPE (GPT-2's 256 byte symbols, a few dozen
merges learnt from a fixed paragraph) with each family's special tokens, ids and tokenizer_config (the
real chat templates).

--real-size writes the same graphs with the real shapes of SmolLM2-135M/-360M-Instruct and
Qwen2.5-0.5B-Instruct (q4 and int8; fp32 for the 135M) and tokenizers padded with generated merges
to the real vocabulary sizes, for the speed benchmarks; never committed (the folder is git-ignored).
"""

import argparse
import math
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections import Counter

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from . import hub_family_specs as S

OPSET = 17  # LayerNormalization
F32, F16, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64
NEG = -1e9  # masked attention scores (the same number in the PyTorch reference)
OWNER = "fixtures"

# ---- tokenizers ------------------------------------------------------------------------------------

# The text the tiny tokenizers learn their merges from (fixed: the merges, and so the ids, never move).
CORPUS = (
    "The writer opened the draft and read the first line again. The story was about a town by the river, "
    "where the rain fell for three days and the water rose over the old bridge. She wanted the ending to "
    "be quiet and true, so she cut the long sentences and kept the short ones. In the morning the river "
    "went down, the people came out, and the children played on the wet stones. The editor said the "
    "draft was better than the last one, and that the title should stay. It is the kind of story that "
    "stays with you: the rain, the river, the town, and the people who live there."
)
CHAT_PROMPTS = {
    "llama": "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    "<|im_start|>user\nWrite one sentence about the river.<|im_end|>\n<|im_start|>assistant\n",
    "qwen2": "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
    "<|im_start|>user\nWrite one sentence about the river.<|im_end|>\n<|im_start|>assistant\n",
    **S.CHAT_PROMPTS,
}
SAMPLE = "The rain fell on the quiet town, and the river rose by 12 feet overnight.\nShe wrote it down."
CHAT = [{"role": "user", "content": "Write one sentence about the river."}]

# GPT-2's pre-tokenizer regex for ASCII text (the tokenizer.json keeps the real one, \p{L} and \p{N})
GPT2_RE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")
QWEN_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN_RE = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

SMOL_SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<repo_name>",
    "<reponame>",
    "<file_sep>",
    "<filename>",
    "<gh_stars>",
    "<issue_start>",
    "<issue_comment>",
    "<issue_closed>",
    "<jupyter_start>",
    "<jupyter_text>",
    "<jupyter_code>",
    "<jupyter_output>",
    "<jupyter_script>",
    "<empty_output>",
]
QWEN_SPECIALS, QWEN_NOT_SPECIAL = S.QWEN_SPECIALS, S.QWEN_NOT_SPECIAL

# HuggingFaceTB/SmolLM2-135M-Instruct's tokenizer_config.json chat_template: '\n' inside the Jinja string
# literals is a backslash and an n (Jinja turns it into a newline), as in the real file.
SMOL_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
# Qwen/Qwen2.5-0.5B-Instruct's chat_template (real newlines between the tags, Jinja escapes inside strings).
QWEN_TEMPLATE = r"""{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""


def byte_symbols():
    """GPT-2's byte -> printable character map, in GPT-2's vocabulary order (ids 0..255 of its vocab)."""
    bs = list(range(ord("!"), ord("~") + 1))
    bs += list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def learn_merges(n, text=CORPUS):
    """Byte-level BPE merges learnt from `text` (GPT-2's pre-tokenization); ties go to the larger pair."""
    sym = byte_symbols()
    return learn_pairs(Counter(tuple(sym[b] for b in w.encode()) for w in GPT2_RE.findall(text)), n)


def learn_pairs(words, n):
    """n merges of the most frequent adjacent pair in `words` (symbol tuples -> counts)."""
    merges = []
    while len(merges) < n:
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            raise ValueError(f"the corpus gives only {len(merges)} merges")
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append((a, b))
        new = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new[tuple(out)] += c
        words = new
    return merges


def pad_merges(merges, total):
    """More merges, generated (pairs of existing tokens, in a fixed order), until byte symbols + merges
    number `total`: a real-size vocabulary whose every token a merge can reach."""
    tokens = list(byte_symbols().values()) + [a + b for a, b in merges]
    have = set(tokens)
    merges = list(merges)
    base = tokens[:512]
    i = 0
    while len(tokens) < total:
        a = tokens[i]
        for b in base:
            if len(tokens) >= total:
                break
            if a + b not in have and len(a + b) <= 16:
                have.add(a + b)
                tokens.append(a + b)
                merges.append((a, b))
        i += 1
    return merges


class Bpe:
    """A byte-level BPE vocabulary: the model part of tokenizer.json, and an encoder for ASCII text that
    gives the ids the real tokenizer must give (check_hub_fixtures.cjs compares them)."""

    def __init__(self, merges, first_id=0):
        sym = byte_symbols()
        self.sym = sym
        self.vocab = {}
        for i, c in enumerate(sym.values()):
            self.vocab[c] = first_id + i
        for a, b in merges:
            assert a + b not in self.vocab, f"two merges make {a + b!r}"
            self.vocab[a + b] = first_id + len(self.vocab)
        self.merges = merges
        self.ranks = {m: r for r, m in enumerate(merges)}

    def model(self, ignore_merges=None):
        m = {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "",
            "fuse_unk": False,
            "byte_fallback": False,
        }
        if ignore_merges is not None:
            m["ignore_merges"] = ignore_merges
        m["vocab"] = self.vocab
        m["merges"] = [f"{a} {b}" for a, b in self.merges]
        return m

    def encode_piece(self, piece):
        w = [self.sym[b] for b in piece.encode()]
        while len(w) > 1:
            ranked = [(self.ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(w, w[1:]))]
            r, i = min(ranked)
            if r == 1 << 30:
                break
            a, b = w[i], w[i + 1]
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(a + b)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            w = out
        return [self.vocab[t] for t in w]

    def encode(self, text, split):
        return [i for piece in split(text) for i in self.encode_piece(piece)]


def gpt2_split(text):
    return GPT2_RE.findall(text)


def smol_split(text):
    # Digits(individual_digits) first, then ByteLevel's GPT-2 regex on each piece
    return [p for chunk in re.findall(r"[^\d]+|\d", text) for p in GPT2_RE.findall(chunk)]


def qwen_split(text):
    return QWEN_RE.findall(text)


def added(i, content, normalized=False, special=True, lstrip=False):
    return {
        "id": i,
        "content": content,
        "single_word": False,
        "lstrip": lstrip,
        "rstrip": False,
        "normalized": normalized,
        "special": special,
    }


def decoder_entry(content, normalized=False, special=True, lstrip=False):
    return {
        "content": content,
        "lstrip": lstrip,
        "normalized": normalized,
        "rstrip": False,
        "single_word": False,
        "special": special,
    }


def byte_level(add_prefix_space, trim_offsets, use_regex=True):
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }


def tokenizer_json(added_tokens, normalizer, pre_tokenizer, post_processor, decoder, model):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor,
        "decoder": decoder,
        "model": model,
    }


def vocab_files(bpe, specials):
    """vocab.json (with the special tokens that are part of the model's base vocabulary) and merges.txt."""
    vocab = dict(bpe.vocab)
    vocab.update(specials)
    vocab = dict(sorted(vocab.items(), key=lambda kv: kv[1]))
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in bpe.merges)
    return {"vocab.json": vocab, "merges.txt": merges}


def gpt2_tokenizer(n_merges, real_vocab=None):
    """GPT-2's: bytes 0..255, merges, <|endoftext|> last (BOS = EOS = UNK)."""
    merges = learn_merges(n_merges)
    if real_vocab:
        merges = pad_merges(merges, real_vocab - 1)
    bpe = Bpe(merges)
    eot = len(bpe.vocab)
    files = {
        "tokenizer.json": tokenizer_json(
            [added(eot, "<|endoftext|>", normalized=True)],
            None,
            byte_level(False, True),
            byte_level(True, False),
            byte_level(True, True),
            bpe.model(),
        ),
        "tokenizer_config.json": {
            "add_prefix_space": False,
            "bos_token": "<|endoftext|>",
            "clean_up_tokenization_spaces": True,
            "eos_token": "<|endoftext|>",
            "model_max_length": 1024,
            "tokenizer_class": "GPT2Tokenizer",
            "unk_token": "<|endoftext|>",
        },
        "special_tokens_map.json": {
            "bos_token": "<|endoftext|>",
            "eos_token": "<|endoftext|>",
            "unk_token": "<|endoftext|>",
        },
    }
    files.update(vocab_files(bpe, {"<|endoftext|>": eot}))
    return files, {"bpe": bpe, "split": gpt2_split, "size": eot + 1, "eos": eot, "bos": eot}


def smol_tokenizer(n_merges, real_vocab=None):
    """SmolLM2's: 17 special tokens at ids 0..16, then bytes and merges."""
    merges = learn_merges(n_merges)
    if real_vocab:
        merges = pad_merges(merges, real_vocab - len(SMOL_SPECIALS))
    bpe = Bpe(merges, first_id=len(SMOL_SPECIALS))
    size = len(SMOL_SPECIALS) + len(bpe.vocab)
    entry = lambda t: {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False}
    files = {
        "tokenizer.json": tokenizer_json(
            [added(i, t) for i, t in enumerate(SMOL_SPECIALS)],
            None,
            {
                "type": "Sequence",
                "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level(False, True)],
            },
            byte_level(True, False),
            byte_level(True, True),
            bpe.model(),
        ),
        "tokenizer_config.json": {
            "add_prefix_space": False,
            "added_tokens_decoder": {str(i): decoder_entry(t) for i, t in enumerate(SMOL_SPECIALS)},
            "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
            "bos_token": "<|im_start|>",
            "chat_template": SMOL_TEMPLATE,
            "clean_up_tokenization_spaces": False,
            "eos_token": "<|im_end|>",
            "model_max_length": 8192,
            "pad_token": "<|im_end|>",
            "tokenizer_class": "GPT2Tokenizer",
            "unk_token": "<|endoftext|>",
            "vocab_size": size,
        },
        "special_tokens_map.json": {
            "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
            "bos_token": entry("<|im_start|>"),
            "eos_token": entry("<|im_end|>"),
            "pad_token": entry("<|im_end|>"),
            "unk_token": entry("<|endoftext|>"),
        },
    }
    files.update(vocab_files(bpe, {t: i for i, t in enumerate(SMOL_SPECIALS)}))
    specials = {t: i for i, t in enumerate(SMOL_SPECIALS)}
    return files, {"bpe": bpe, "split": smol_split, "size": size, "bos": 1, "eos": 2, "pad": 2, "specials": specials}


def qwen_tokenizer(n_merges, real_vocab=None):
    """Qwen2.5's: bytes and merges, then its 22 added tokens (<|endoftext|> first); no BOS."""
    merges = learn_merges(n_merges)
    if real_vocab:
        merges = pad_merges(merges, real_vocab - len(QWEN_SPECIALS))
    bpe = Bpe(merges)
    first = len(bpe.vocab)
    ids = {t: first + i for i, t in enumerate(QWEN_SPECIALS)}
    entry = lambda t: {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False}
    extra = QWEN_SPECIALS[1:14]
    files = {
        "tokenizer.json": tokenizer_json(
            [added(ids[t], t, special=t not in QWEN_NOT_SPECIAL) for t in QWEN_SPECIALS],
            {"type": "NFC"},
            {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Split", "pattern": {"Regex": QWEN_SPLIT}, "behavior": "Isolated", "invert": False},
                    byte_level(False, False, False),
                ],
            },
            byte_level(False, False, False),
            byte_level(False, False, False),
            bpe.model(ignore_merges=False),
        ),
        "tokenizer_config.json": {
            "add_bos_token": False,
            "add_prefix_space": False,
            "added_tokens_decoder": {
                str(ids[t]): decoder_entry(t, special=t not in QWEN_NOT_SPECIAL) for t in QWEN_SPECIALS
            },
            "additional_special_tokens": extra,
            "bos_token": None,
            "chat_template": QWEN_TEMPLATE,
            "clean_up_tokenization_spaces": False,
            "eos_token": "<|im_end|>",
            "errors": "replace",
            "model_max_length": 131072,
            "pad_token": "<|endoftext|>",
            "split_special_tokens": False,
            "tokenizer_class": "Qwen2Tokenizer",
            "unk_token": None,
        },
        "special_tokens_map.json": {
            "additional_special_tokens": extra,
            "eos_token": entry("<|im_end|>"),
            "pad_token": entry("<|endoftext|>"),
        },
    }
    files.update(vocab_files(bpe, {}))  # Qwen's vocab.json has the byte-level tokens only, not the added ones
    eot, im_end = ids["<|endoftext|>"], ids["<|im_end|>"]
    info = {"bpe": bpe, "split": qwen_split, "size": first + len(QWEN_SPECIALS), "eot": eot, "im_end": im_end}
    return files, {**info, "specials": ids}


def bart_tokenizer(n_merges):
    """BART's (RoBERTa's): <s> <pad> </s> <unk> at 0..3, bytes and merges, <mask> last."""
    bpe = Bpe(learn_merges(n_merges), first_id=4)
    mask = 4 + len(bpe.vocab)
    specials = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    files = {
        "tokenizer.json": tokenizer_json(
            [added(i, t, normalized=True) for t, i in specials.items()]
            + [added(mask, "<mask>", normalized=True, lstrip=True)],
            None,
            byte_level(False, True),
            {
                "type": "RobertaProcessing",
                "sep": ["</s>", 2],
                "cls": ["<s>", 0],
                "trim_offsets": True,
                "add_prefix_space": False,
            },
            byte_level(True, True),
            bpe.model(),
        ),
        "tokenizer_config.json": {
            "add_prefix_space": False,
            "bos_token": "<s>",
            "clean_up_tokenization_spaces": True,
            "cls_token": "<s>",
            "eos_token": "</s>",
            "errors": "replace",
            "mask_token": "<mask>",
            "model_max_length": 1024,
            "pad_token": "<pad>",
            "sep_token": "</s>",
            "tokenizer_class": "BartTokenizer",
            "trim_offsets": True,
            "unk_token": "<unk>",
        },
        "special_tokens_map.json": {
            "bos_token": "<s>",
            "cls_token": "<s>",
            "eos_token": "</s>",
            "mask_token": {
                "content": "<mask>",
                "lstrip": True,
                "normalized": True,
                "rstrip": False,
                "single_word": False,
            },
            "pad_token": "<pad>",
            "sep_token": "</s>",
            "unk_token": "<unk>",
        },
    }
    files.update(vocab_files(bpe, {**specials, "<mask>": mask}))
    return files, {"bpe": bpe, "split": gpt2_split, "size": mask + 1, "wrap": (0, 2)}


# ---- the other families' tokenizers (hub_family_specs.py holds their tokens and templates) ----------

# cl100k's (OLMo 2) and Llama 3's (SmolLM3) split: digits in runs of up to three; ASCII analogue below
CL100K_SPLIT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
CL100K_RE = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def cl100k_split(text):
    return CL100K_RE.findall(text)


def split_pretokenizer(pattern):
    return {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            byte_level(False, False, False),
        ],
    }


def bytelevel_family_tokenizer(n_merges, lead, trail, not_special, split, tokenizer_config, special_map):
    """A byte-level BPE tokenizer with special tokens `lead` at ids 0.. (Granite's) and `trail` after the
    merges (Qwen's, OLMo 2's, Llama 3's). split: "digits" (StarCoder's: single digits, then GPT-2's regex),
    "qwen" or "cl100k" (a Split regex, then ByteLevel without its own). No start token is added."""
    bpe = Bpe(learn_merges(n_merges), first_id=len(lead))
    first = len(lead) + len(bpe.vocab)
    ids = {t: i for i, t in enumerate(lead)} | {t: first + i for i, t in enumerate(trail)}
    if split == "digits":
        pre = {
            "type": "Sequence",
            "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level(False, True)],
        }
        normalizer, post, decoder, fn = None, byte_level(True, False), byte_level(True, True), smol_split
    else:
        pattern, fn = (QWEN_SPLIT, qwen_split) if split == "qwen" else (CL100K_SPLIT, cl100k_split)
        pre, post, decoder = (
            split_pretokenizer(pattern),
            byte_level(False, False, False),
            byte_level(False, False, False),
        )
        normalizer = {"type": "NFC"} if split == "qwen" else None
    order = lead + trail
    files = {
        "tokenizer.json": tokenizer_json(
            [added(ids[t], t, special=t not in not_special) for t in order],
            normalizer,
            pre,
            post,
            decoder,
            bpe.model(ignore_merges=False if split != "digits" else None),
        ),
        "tokenizer_config.json": {
            **tokenizer_config,
            "added_tokens_decoder": {str(ids[t]): decoder_entry(t, special=t not in not_special) for t in order},
        },
        "special_tokens_map.json": special_map,
    }
    files["tokenizer_config.json"] = dict(sorted(files["tokenizer_config.json"].items()))
    files.update(vocab_files(bpe, {} if split == "qwen" else ids))  # Qwen's vocab.json leaves its added tokens out
    info = {"bpe": bpe, "split": fn, "size": first + len(trail), "specials": ids}
    return files, info


SPACE = "\u2581"  # SentencePiece's word start


class SpBpe:
    """A SentencePiece-style BPE vocabulary (Llama 2's, Mistral's, Phi-3's, Gemma's): characters with "▁" for
    a space, byte tokens <0x00>..<0xFF> for what the vocabulary lacks (byte_fallback), merges learnt
    on "▁word" units (so no merge crosses a word start). `prefix`: Metaspace's "▁" before the text."""

    def __init__(self, n_merges, first_id, prefix):
        chars = [SPACE] + [chr(c) for c in range(33, 127)]
        units = Counter(tuple(SPACE + w) for w in CORPUS.split(" "))
        self.merges = learn_pairs(units, n_merges)
        self.vocab = {f"<0x{b:02X}>": first_id + b for b in range(256)}
        for t in chars + [a + b for a, b in self.merges]:
            assert t not in self.vocab, t
            self.vocab[t] = first_id + len(self.vocab)
        self.ranks = {m: r for r, m in enumerate(self.merges)}
        self.prefix = prefix

    def model(self, unk):
        return {
            "type": "BPE",
            "dropout": None,
            "unk_token": unk,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": self.vocab,
            "merges": [f"{a} {b}" for a, b in self.merges],
        }

    def encode(self, text, first=True):
        s = text.replace(" ", SPACE)
        if self.prefix and first and not s.startswith(SPACE):
            s = SPACE + s
        out = []
        for unit in [u for u in re.split(f"(?={SPACE})", s) if u]:
            w = [ch if ch in self.vocab else None for ch in unit]
            w = [t for ch, t in zip(unit, w) for t in ([t] if t else [f"<0x{b:02X}>" for b in ch.encode()])]
            while len(w) > 1:
                r, i = min((self.ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(w, w[1:])))
                if r == 1 << 30:
                    break
                w = w[:i] + [w[i] + w[i + 1]] + w[i + 2 :]
            out += [self.vocab[t] for t in w]
        return out


def sp_family_tokenizer(n_merges, lead, trail, style, bos, tokenizer_config, special_map):
    """A SentencePiece-style tokenizer.json: special tokens `lead` at ids 0.., the byte tokens, characters and
    merges, `trail` after them. style "metaspace" (Mistral v0.3, Phi-3: a "▁" before the first section,
    tokenizers' Metaspace) or "gemma" (spaces replaced, nothing prepended). bos: the start token the
    post-processor puts first (None: none)."""
    sp = SpBpe(n_merges, len(lead), prefix=style == "metaspace")
    first = len(lead) + len(sp.vocab)
    ids = {t: i for i, t in enumerate(lead)} | {t: first + i for i, t in enumerate(trail)}
    unk = "<unk>"
    decoders = [
        {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]
    if style == "metaspace":
        normalizer = None
        pre = {
            "type": "Metaspace",
            "replacement": SPACE,
            "add_prefix_space": True,
            "prepend_scheme": "first",
            "split": False,
        }
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})  # the "▁" put before the text
    else:
        normalizer = {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}
        pre = None
    decoder = {"type": "Sequence", "decoders": decoders}
    seq = lambda i: {"Sequence": {"id": i, "type_id": 0}}
    if bos:
        tok = {"SpecialToken": {"id": bos, "type_id": 0}}
        post = {
            "type": "TemplateProcessing",
            "single": [tok, seq("A")],
            "pair": [
                tok,
                seq("A"),
                {"SpecialToken": {"id": bos, "type_id": 1}},
                {"Sequence": {"id": "B", "type_id": 1}},
            ],
            "special_tokens": {bos: {"id": bos, "ids": [ids[bos]], "tokens": [bos]}},
        }
    else:
        post = {
            "type": "TemplateProcessing",
            "single": [seq("A")],
            "pair": [seq("A"), {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {},
        }
    order = lead + trail
    model = sp.model(unk)
    model["vocab"] = {t: ids[t] for t in lead} | model["vocab"]  # SentencePiece's own specials are pieces too
    files = {
        "tokenizer.json": tokenizer_json([added(ids[t], t) for t in order], normalizer, pre, post, decoder, model),
        "tokenizer_config.json": dict(
            sorted(
                {
                    **tokenizer_config,
                    "added_tokens_decoder": {str(ids[t]): decoder_entry(t) for t in order},
                }.items()
            )
        ),
        "special_tokens_map.json": special_map,
    }
    info = {
        "bpe": sp,
        "split": None,
        "size": first + len(trail),
        "specials": ids,
        "encode": sp.encode,
        "prefix": [ids[bos]] if bos else [],
    }
    return files, info


# ---- weights -------------------------------------------------------------------------------------


class Rng:
    """Seeded normal weights; a name's tensor depends on the seed and the order of calls only."""

    def __init__(self, seed):
        self.r = np.random.default_rng(seed)

    def normal(self, shape, std):
        return (self.r.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    def around_one(self, n, std=0.1):
        return (1 + self.normal((n,), std)).astype(np.float32)


def llama_weights(c, seed):
    """Linear weights as [in, out] (x @ W), named after the Hugging Face modules."""
    r = Rng(seed)
    d, hd, kv, inter = c["hidden_size"], c["head_dim"], c["num_key_value_heads"], c["intermediate_size"]
    H = c["num_attention_heads"]
    W = {"model.embed_tokens": r.normal((c["vocab_size"], d), 2 / np.sqrt(d))}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        W[p + ".input_layernorm"] = r.around_one(d)
        for name, out in (("q_proj", H * hd), ("k_proj", kv * hd), ("v_proj", kv * hd)):
            W[f"{p}.self_attn.{name}"] = r.normal((d, out), 1 / np.sqrt(d))
            if c.get("attention_bias"):
                W[f"{p}.self_attn.{name}.bias"] = r.normal((out,), 0.5)
        W[p + ".self_attn.o_proj"] = r.normal((H * hd, d), 1 / np.sqrt(H * hd))
        W[p + ".post_attention_layernorm"] = r.around_one(d)
        W[p + ".mlp.gate_proj"] = r.normal((d, inter), 1 / np.sqrt(d))
        W[p + ".mlp.up_proj"] = r.normal((d, inter), 1 / np.sqrt(d))
        W[p + ".mlp.down_proj"] = r.normal((inter, d), 1 / np.sqrt(inter))
    W["model.norm"] = r.around_one(d)
    if c.get("tie_word_embeddings") is False:
        W["lm_head"] = r.normal((d, c["vocab_size"]), 1 / np.sqrt(d))
    return W


def gpt2_weights(c, seed):
    r = Rng(seed)
    d = c["n_embd"]
    W = {
        "transformer.wte": r.normal((c["vocab_size"], d), 2 / np.sqrt(d)),
        "transformer.wpe": r.normal((c["n_positions"], d), 0.3),
    }
    for i in range(c["n_layer"]):
        p = f"transformer.h.{i}"
        for ln in ("ln_1", "ln_2"):
            W[f"{p}.{ln}.weight"], W[f"{p}.{ln}.bias"] = r.around_one(d), r.normal((d,), 0.1)
        for name, (a, b) in (
            ("attn.c_attn", (d, 3 * d)),
            ("attn.c_proj", (d, d)),
            ("mlp.c_fc", (d, 4 * d)),
            ("mlp.c_proj", (4 * d, d)),
        ):
            W[f"{p}.{name}"], W[f"{p}.{name}.bias"] = r.normal((a, b), 1 / np.sqrt(a)), r.normal((b,), 0.1)
    W["transformer.ln_f.weight"], W["transformer.ln_f.bias"] = r.around_one(d), r.normal((d,), 0.1)
    return W


def bart_weights(c, seed):
    r = Rng(seed)
    d, f = c["d_model"], c["encoder_ffn_dim"]
    W = {"model.shared": r.normal((c["vocab_size"], d), 2 / np.sqrt(d))}

    def attn(p):
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            W[f"{p}.{name}"], W[f"{p}.{name}.bias"] = r.normal((d, d), 1 / np.sqrt(d)), r.normal((d,), 0.1)

    def ln(p):
        W[p + ".weight"], W[p + ".bias"] = r.around_one(d), r.normal((d,), 0.1)

    for part, n in (("encoder", c["encoder_layers"]), ("decoder", c["decoder_layers"])):
        W[f"model.{part}.embed_positions"] = r.normal((c["max_position_embeddings"] + 2, d), 0.3)
        ln(f"model.{part}.layernorm_embedding")
        for i in range(n):
            p = f"model.{part}.layers.{i}"
            attn(p + ".self_attn")
            ln(p + ".self_attn_layer_norm")
            if part == "decoder":
                attn(p + ".encoder_attn")
                ln(p + ".encoder_attn_layer_norm")
            W[p + ".fc1"], W[p + ".fc1.bias"] = r.normal((d, f), 1 / np.sqrt(d)), r.normal((f,), 0.1)
            W[p + ".fc2"], W[p + ".fc2.bias"] = r.normal((f, d), 1 / np.sqrt(f)), r.normal((d,), 0.1)
            ln(p + ".final_layer_norm")
    W["final_logits_bias"] = np.zeros((c["vocab_size"],), np.float32)  # a zero buffer in the real model too
    return W


def q4_block(k):
    return 32 if k % 32 == 0 else 16


def q4_pack(w, act=np.float32):
    """MatMulNBits' storage of w [K, N]: per output column n, K in blocks, 4-bit symmetric (zero point 8,
    implied), two values a byte (low nibble first); scales [N * blocks] in the activation dtype.
    Returns (packed uint8 [N, blocks, block/2], scales, the dequantized w the graph computes with)."""
    K, N = w.shape
    bs = q4_block(K)
    nb = -(-K // bs)
    wt = np.zeros((N, nb * bs), np.float32)
    wt[:, :K] = w.T
    wt = wt.reshape(N, nb, bs)
    scale = (np.abs(wt).max(axis=-1) / 7).astype(act)
    scale[scale == 0] = 1
    s32 = scale.astype(np.float32)
    q = np.clip(np.rint(wt / s32[..., None]), -8, 7).astype(np.int8)
    deq = (q.astype(np.float32) * s32[..., None]).reshape(N, nb * bs)[:, :K].T.copy()
    u = (q + 8).astype(np.uint8)
    packed = (u[..., 0::2] | (u[..., 1::2] << 4)).astype(np.uint8)
    return packed, scale.reshape(-1), deq


def int8_pack(w, kind):
    """Per output column, symmetric: int8 in [-127, 127], or uint8 around the zero point 128."""
    scale = (np.abs(w).max(axis=0) / 127).astype(np.float32)
    scale[scale == 0] = 1
    q = np.clip(np.rint(w / scale), -127, 127)
    if kind == "uint8":
        return (q + 128).astype(np.uint8), scale, np.array(128, np.uint8)
    return q.astype(np.int8), scale, None


# ---- the graph builder -----------------------------------------------------------------------------


class Graph:
    """One ONNX graph. act: the dtype of activations, float weights and caches (float32 or float16);
    weights: how x @ W is stored and computed ("float", "q4": MatMulNBits, "int8"/"uint8": dynamic
    quantization). Node and tensor names follow torch.onnx's ("/model/layers.0/self_attn/q_proj/MatMul")."""

    def __init__(self, act=np.float32, weights="float"):
        self.act, self.weights = act, weights
        self.ft = F16 if act == np.float16 else F32
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.names, self.consts, self.init_names = set(), {}, set()
        self.ms = False

    def op(self, op_type, inputs, name, n_out=1, out=None, domain=None, **attrs):
        base, k = name, 1
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        outs = out if out else [f"{name}_output_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, domain=domain, **attrs))
        return outs[0] if len(outs) == 1 else outs

    def init(self, name, arr):
        assert name not in self.init_names, name
        self.init_names.add(name)
        arr = np.asarray(arr)  # (not ascontiguousarray: that makes a scalar 1-D)
        self.inits.append(numpy_helper.from_array(arr if arr.flags.c_contiguous else arr.copy(), name))
        return name

    def fweight(self, name, arr):
        return self.init(name, np.asarray(arr, np.float32).astype(self.act))

    def const(self, value, dtype=np.int64):
        arr = np.asarray(value, dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key not in self.consts:
            self.consts[key] = self.init(f"/Constant_{len(self.consts)}_output_0", arr)
        return self.consts[key]

    def fconst(self, value):
        return self.const(value, self.act)

    def input(self, name, elem, dims):
        self.inputs.append(helper.make_tensor_value_info(name, elem, dims))
        return name

    def output(self, name, src, elem, dims):
        self.op("Identity", [src], f"/{name}/Identity", out=[name])
        self.outputs.append(helper.make_tensor_value_info(name, elem, dims))

    def model(self, name="main_graph"):
        opsets = [helper.make_opsetid("", OPSET)]
        if self.ms:
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        g = helper.make_graph(self.nodes, name, self.inputs, self.outputs, initializer=self.inits)
        m = helper.make_model(g, opset_imports=opsets, producer_name="draftsmith hub_fixtures")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m

    # ---- layers ----
    def linear(self, x, name, w, b=None):
        """x @ w (+ b), w [in, out]."""
        K, N = w.shape
        mode = self.weights
        if mode == "float":
            y = self.op("MatMul", [x, self.fweight(name + ".weight", w)], f"/{name}/MatMul")
        elif mode == "q4":
            packed, scales, _ = q4_pack(w, self.act)
            self.ms = True
            y = self.op(
                "MatMulNBits",
                [x, self.init(name + ".weight_Q4", packed), self.init(name + ".weight_scales", scales)],
                f"/{name}/MatMul_Q4",
                domain="com.microsoft",
                K=K,
                N=N,
                bits=4,
                block_size=q4_block(K),
            )
        else:
            assert self.act == np.float32, "dynamic int8 quantization needs float32 activations"
            wq, ws, wz = int8_pack(w, mode)
            q, s, z = self.op("DynamicQuantizeLinear", [x], f"/{name}/DynamicQuantizeLinear", n_out=3)
            ins = [q, self.init(name + ".weight_quantized", wq), z]
            if wz is not None:
                ins.append(self.init(name + ".weight_zero_point", wz))
            yi = self.op("MatMulInteger", ins, f"/{name}/MatMulInteger")
            yf = self.op("Cast", [yi], f"/{name}/Cast", to=F32)
            sc = self.op("Mul", [s, self.init(name + ".weight_scale", ws)], f"/{name}/scale")
            y = self.op("Mul", [yf, sc], f"/{name}/rescale")
        if b is not None:
            y = self.op("Add", [y, self.fweight(name + ".bias", b)], f"/{name}/Add")
        return y

    def tied_logits(self, x, emb_name, emb, name="lm_head"):
        """x @ emb^T: float graphs read the embedding table itself (onnxruntime folds the Transpose
        at load); quantized ones get their own copy of it, quantized (as exports of tied models do)."""
        if self.weights == "float":
            t = self.op("Transpose", [emb_name], f"/{name}/Transpose", perm=[1, 0])
            return self.op("MatMul", [x, t], f"/{name}/MatMul")
        return self.linear(x, name, np.ascontiguousarray(emb.T))

    def shape_dim(self, x, axis, name):
        s = self.op("Shape", [x], f"/{name}/Shape")
        return self.op("Gather", [s, self.const(axis)], f"/{name}/Gather", axis=0)  # a scalar

    def heads(self, x, n, d, name):
        """[B, T, n*d] -> [B, n, T, d]."""
        r = self.op("Reshape", [x, self.const([0, 0, n, d])], f"/{name}/Reshape")
        return self.op("Transpose", [r], f"/{name}/Transpose", perm=[0, 2, 1, 3])

    def merge_heads(self, x, n, d, name):
        t = self.op("Transpose", [x], f"/{name}/Transpose", perm=[0, 2, 1, 3])
        return self.op("Reshape", [t, self.const([0, 0, n * d])], f"/{name}/Reshape")

    def causal_bias(self, total, t, pad_mask, name, rank=4):
        """Additive attention bias [B or 1, 1, T, S] (float32): query i (absolute position S - T + i)
        sees key j <= S - T + i, and only where pad_mask [B, S] is 1 (if given)."""
        p = self.op("Sub", [total, t], f"/{name}/past_length")
        kpos = self.op("Range", [self.const(0), total, self.const(1)], f"/{name}/key_positions")
        qpos = self.op("Range", [p, total, self.const(1)], f"/{name}/query_positions")
        qpos = self.op("Unsqueeze", [qpos, self.const([1])], f"/{name}/Unsqueeze")
        allowed = self.op("LessOrEqual", [kpos, qpos], f"/{name}/causal")  # [T, S]
        if pad_mask is not None:
            m = self.op("Cast", [pad_mask], f"/{name}/mask_bool", to=TensorProto.BOOL)
            m = self.op("Unsqueeze", [m, self.const([1, 2])], f"/{name}/mask_unsqueeze")
            allowed = self.op("And", [allowed, m], f"/{name}/And")  # [B, 1, T, S]
        else:
            allowed = self.op("Unsqueeze", [allowed, self.const([0, 1])], f"/{name}/causal_unsqueeze")
        bias = self.op("Where", [allowed, self.const(0.0, np.float32), self.const(NEG, np.float32)], f"/{name}/Where")
        if rank == 5:
            bias = self.op("Unsqueeze", [bias, self.const([1])], f"/{name}/gqa_unsqueeze")
        return bias

    def pad_bias(self, pad_mask, name):
        """[B, S] 0/1 -> additive [B, 1, 1, S] (float32)."""
        m = self.op("Cast", [pad_mask], f"/{name}/mask_bool", to=TensorProto.BOOL)
        m = self.op("Unsqueeze", [m, self.const([1, 2])], f"/{name}/Unsqueeze")
        return self.op("Where", [m, self.const(0.0, np.float32), self.const(NEG, np.float32)], f"/{name}/Where")

    def softmax_f32(self, scores, bias, name):
        """softmax(scores + bias) computed in float32 (float16 graphs cast around it, as fp16 exports do)."""
        if self.act == np.float16:
            scores = self.op("Cast", [scores], f"/{name}/Cast", to=F32)
        s = self.op("Add", [scores, bias], f"/{name}/Add")
        p = self.op("Softmax", [s], f"/{name}/Softmax", axis=-1)
        if self.act == np.float16:
            p = self.op("Cast", [p], f"/{name}/Cast_1", to=F16)
        return p

    def rms_norm(self, x, w, eps, name):
        """Llama's: in float32, then back to the activation dtype, times the weight."""
        xf = self.op("Cast", [x], f"/{name}/Cast", to=F32) if self.act == np.float16 else x
        # torch.onnx's pattern (Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul): onnxruntime fuses it at load
        sq = self.op("Pow", [xf, self.const(2.0, np.float32)], f"/{name}/Pow")
        var = self.op("ReduceMean", [sq], f"/{name}/ReduceMean", axes=[-1], keepdims=1)
        var = self.op("Add", [var, self.const(eps, np.float32)], f"/{name}/Add")
        r = self.op("Sqrt", [var], f"/{name}/Sqrt")
        r = self.op("Reciprocal", [r], f"/{name}/Reciprocal")
        y = self.op("Mul", [xf, r], f"/{name}/Mul")
        if self.act == np.float16:
            y = self.op("Cast", [y], f"/{name}/Cast_1", to=F16)
        return self.op("Mul", [y, self.fweight(name + ".weight", w)], f"/{name}/Mul_1")

    def layer_norm(self, x, W, p, eps):
        return self.op(
            "LayerNormalization",
            [x, self.fweight(p + ".weight", W[p + ".weight"]), self.fweight(p + ".bias", W[p + ".bias"])],
            f"/{p}/LayerNormalization",
            axis=-1,
            epsilon=eps,
        )


# ---- Llama / Qwen2 ---------------------------------------------------------------------------------


def rope_inv_freq(c):
    # In float64, rounded once to float32: numpy's float32 power differs in the last bit between CPUs
    # (its SIMD kernels on AVX-512 against libm's powf), and the fixtures must be the same bytes on every machine
    d = c["head_dim"]
    theta = float(c["rope_theta"])
    return np.array([1.0 / math.pow(theta, i / d) for i in range(0, d, 2)], dtype=np.float64).astype(np.float32)


def uses_rope(c, i):
    """SmolLM3 leaves rotary embeddings out of the layers its no_rope_layers marks 0 (NoPE)."""
    return c.get("no_rope_layers", [1] * (i + 1))[i] != 0


def llama_graph(c, W, act=np.float32, weights="float", logits_to_keep=False):
    """The decoder with past as optimum and transformers.js's conversions write it (model.onnx): the
    past is always an input (zero-length on the first step), positions come in position_ids."""
    g = Graph(act, weights)
    L, H, KV, D = c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    rep = H // KV
    eps = c["rms_norm_eps"]
    ids = g.input("input_ids", I64, ["batch_size", "sequence_length"])
    mask = g.input("attention_mask", I64, ["batch_size", "past_sequence_length + sequence_length"])
    pos = g.input("position_ids", I64, ["batch_size", "sequence_length"])
    past = [
        tuple(
            g.input(f"past_key_values.{i}.{kv}", g.ft, ["batch_size", KV, "past_sequence_length", D])
            for kv in ("key", "value")
        )
        for i in range(L)
    ]
    keep = g.input("num_logits_to_keep", I64, []) if logits_to_keep else None

    emb_name = g.fweight("model.embed_tokens.weight", W["model.embed_tokens"])
    x = g.op("Gather", [emb_name, ids], "/model/embed_tokens/Gather", axis=0)
    # rotary tables [B, 1, 1, T, D] (the 1s: key-value heads, query heads per key-value head)
    f = g.op("Cast", [pos], "/model/rotary_emb/Cast", to=F32)
    f = g.op("Unsqueeze", [f, g.const([-1])], "/model/rotary_emb/Unsqueeze")
    f = g.op("Mul", [f, g.init("model.rotary_emb.inv_freq", rope_inv_freq(c))], "/model/rotary_emb/Mul")
    f = g.op("Concat", [f, f], "/model/rotary_emb/Concat", axis=-1)
    cos, sin = (g.op(o, [f], f"/model/rotary_emb/{o}") for o in ("Cos", "Sin"))
    if act == np.float16:
        cos, sin = (g.op("Cast", [t], f"/model/rotary_emb/Cast_{i}", to=F16) for i, t in enumerate((cos, sin)))
    cos, sin = (
        g.op("Unsqueeze", [t, g.const([1, 2])], f"/model/rotary_emb/Unsqueeze_{i}") for i, t in enumerate((cos, sin))
    )
    total = g.shape_dim(mask, 1, "model/total_length")
    t = g.shape_dim(ids, 1, "model/sequence_length")
    bias = g.causal_bias(total, t, mask, "model/attention_mask", rank=5)  # [B, 1, 1, T, S]
    scale = g.fconst(1 / np.sqrt(D))

    def rope(x, name):  # x [B, G, R, T, D]
        x1, x2 = g.op("Split", [x, g.const([D // 2, D // 2])], f"/{name}/Split", n_out=2, axis=-1)
        rot = g.op("Concat", [g.op("Neg", [x2], f"/{name}/Neg"), x1], f"/{name}/Concat", axis=-1)
        return g.op(
            "Add", [g.op("Mul", [x, cos], f"/{name}/Mul"), g.op("Mul", [rot, sin], f"/{name}/Mul_1")], f"/{name}/Add"
        )

    for i in range(L):
        p = f"model.layers.{i}"
        a = f"{p}.self_attn"
        h = g.rms_norm(x, W[p + ".input_layernorm"], eps, p + ".input_layernorm")
        q, k, v = (
            g.linear(h, f"{a}.{n}", W[f"{a}.{n}"], W.get(f"{a}.{n}.bias")) for n in ("q_proj", "k_proj", "v_proj")
        )
        # [B, T, H*D] -> [B, KV, rep, T, D]: query head h = kv * rep + r reads key-value head kv
        q = g.op("Reshape", [q, g.const([0, 0, KV, rep, D])], f"/{a}/q_Reshape")
        q = g.op("Transpose", [q], f"/{a}/q_Transpose", perm=[0, 2, 3, 1, 4])
        k, v = (g.heads(y, KV, D, f"{a}/{n}") for y, n in ((k, "k"), (v, "v")))  # [B, KV, T, D]
        if uses_rope(c, i):
            q = rope(q, f"{a}/q_rotary")
            k = g.op("Unsqueeze", [k, g.const([2])], f"/{a}/k_Unsqueeze")
            k = rope(k, f"{a}/k_rotary")
            k = g.op("Squeeze", [k, g.const([2])], f"/{a}/k_Squeeze")
        k_all = g.op("Concat", [past[i][0], k], f"/{a}/key_Concat", axis=2)
        v_all = g.op("Concat", [past[i][1], v], f"/{a}/value_Concat", axis=2)
        present_dims = ["batch_size", KV, "past_sequence_length + sequence_length", D]
        g.output(f"present.{i}.key", k_all, g.ft, present_dims)
        g.output(f"present.{i}.value", v_all, g.ft, present_dims)
        kt = g.op("Transpose", [k_all], f"/{a}/key_Transpose", perm=[0, 1, 3, 2])
        kt = g.op("Unsqueeze", [kt, g.const([2])], f"/{a}/key_Unsqueeze")  # [B, KV, 1, D, S]
        s = g.op("MatMul", [q, kt], f"/{a}/MatMul")
        s = g.op("Mul", [s, scale], f"/{a}/Mul")
        probs = g.softmax_f32(s, bias, f"{a}/softmax")
        vv = g.op("Unsqueeze", [v_all, g.const([2])], f"/{a}/value_Unsqueeze")
        ctx = g.op("MatMul", [probs, vv], f"/{a}/MatMul_1")  # [B, KV, rep, T, D]
        ctx = g.op("Transpose", [ctx], f"/{a}/Transpose", perm=[0, 3, 1, 2, 4])
        ctx = g.op("Reshape", [ctx, g.const([0, 0, H * D])], f"/{a}/Reshape")
        x = g.op("Add", [x, g.linear(ctx, a + ".o_proj", W[a + ".o_proj"])], f"/{p}/Add")
        h = g.rms_norm(x, W[p + ".post_attention_layernorm"], eps, p + ".post_attention_layernorm")
        m = f"{p}.mlp"
        gate = g.linear(h, m + ".gate_proj", W[m + ".gate_proj"])
        up = g.linear(h, m + ".up_proj", W[m + ".up_proj"])
        silu = g.op("Mul", [gate, g.op("Sigmoid", [gate], f"/{m}/act_fn/Sigmoid")], f"/{m}/act_fn/Mul")
        y = g.linear(g.op("Mul", [silu, up], f"/{m}/Mul"), m + ".down_proj", W[m + ".down_proj"])
        x = g.op("Add", [x, y], f"/{p}/Add_1")
    x = g.rms_norm(x, W["model.norm"], eps, "model.norm")
    if keep is not None:
        # logits for the last num_logits_to_keep positions only (0: all of them)
        tt = g.shape_dim(x, 1, "model/keep_length")
        start = g.op("Sub", [tt, keep], "/model/keep/Sub")
        start = g.op(
            "Where", [g.op("Equal", [keep, g.const(0)], "/model/keep/Equal"), g.const(0), start], "/model/keep/Where"
        )
        start = g.op("Max", [start, g.const(0)], "/model/keep/Max")
        start = g.op("Unsqueeze", [start, g.const([0])], "/model/keep/Unsqueeze")
        x = g.op("Slice", [x, start, g.const([np.iinfo(np.int64).max]), g.const([1])], "/model/keep/Slice")
    if "lm_head" in W:
        logits = g.linear(x, "lm_head", W["lm_head"])
    else:
        logits = g.tied_logits(x, emb_name, W["model.embed_tokens"])
    g.output(
        "logits", logits, g.ft, ["batch_size", "logits_sequence_length" if keep else "sequence_length", c["vocab_size"]]
    )
    # outputs in optimum's order: logits first
    g.outputs = g.outputs[-1:] + g.outputs[:-1]
    return g.model()


# ---- GPT-2 ----------------------------------------------------------------------------------------


def gpt2_graph(c, W, with_past, position_ids, weights="float", merged_dims=True):
    """One of optimum's two decoders: without past (the first step: presents from scratch) or with it.
    position_ids False: the older export, positions from the past's length inside the graph.
    merged_dims: the names the merged model's inputs carry (attention_mask over past + new)."""
    g = Graph(np.float32, weights)
    L, H, d = c["n_layer"], c["n_head"], c["n_embd"]
    D = d // H
    seq = "sequence_length"
    total_name = "past_sequence_length + sequence_length" if (with_past or merged_dims) else seq
    ids = g.input("input_ids", I64, ["batch_size", seq])
    mask = g.input("attention_mask", I64, ["batch_size", total_name])
    pos = g.input("position_ids", I64, ["batch_size", seq]) if position_ids else None
    past = []
    if with_past:
        past = [
            tuple(
                g.input(f"past_key_values.{i}.{kv}", F32, ["batch_size", H, "past_sequence_length", D])
                for kv in ("key", "value")
            )
            for i in range(L)
        ]
    t = g.shape_dim(ids, 1, "transformer/sequence_length")
    if pos is None:
        p0 = g.shape_dim(past[0][0], 2, "transformer/past_length") if past else g.const(0)
        end = g.op("Add", [p0, t], "/transformer/Add")
        pos = g.op("Range", [p0, end, g.const(1)], "/transformer/Range")
        pos = g.op("Unsqueeze", [pos, g.const([0])], "/transformer/Unsqueeze")
    wte = g.fweight("transformer.wte.weight", W["transformer.wte"])
    x = g.op("Gather", [wte, ids], "/transformer/wte/Gather", axis=0)
    pe = g.op(
        "Gather", [g.fweight("transformer.wpe.weight", W["transformer.wpe"]), pos], "/transformer/wpe/Gather", axis=0
    )
    x = g.op("Add", [x, pe], "/transformer/Add_1")
    total = g.shape_dim(mask, 1, "transformer/total_length")
    bias = g.causal_bias(total, t, mask, "transformer/attention_mask")
    scale = g.fconst(1 / np.sqrt(D))
    eps = c["layer_norm_epsilon"]
    present_dims = ["batch_size", H, total_name, D]
    for i in range(L):
        p = f"transformer.h.{i}"
        h = g.layer_norm(x, W, p + ".ln_1", eps)
        qkv = g.linear(h, p + ".attn.c_attn", W[p + ".attn.c_attn"], W[p + ".attn.c_attn.bias"])
        q, k, v = g.op("Split", [qkv, g.const([d, d, d])], f"/{p}/attn/Split", n_out=3, axis=-1)
        q, k, v = (g.heads(y, H, D, f"{p}/attn/{n}") for y, n in ((q, "q"), (k, "k"), (v, "v")))
        if past:
            k = g.op("Concat", [past[i][0], k], f"/{p}/attn/key_Concat", axis=2)
            v = g.op("Concat", [past[i][1], v], f"/{p}/attn/value_Concat", axis=2)
        g.output(f"present.{i}.key", k, F32, present_dims)
        g.output(f"present.{i}.value", v, F32, present_dims)
        s = g.op(
            "MatMul", [q, g.op("Transpose", [k], f"/{p}/attn/key_Transpose", perm=[0, 1, 3, 2])], f"/{p}/attn/MatMul"
        )
        s = g.op("Mul", [s, scale], f"/{p}/attn/Mul")
        a = g.op("MatMul", [g.softmax_f32(s, bias, f"{p}/attn/softmax"), v], f"/{p}/attn/MatMul_1")
        a = g.linear(
            g.merge_heads(a, H, D, f"{p}/attn/merge"),
            p + ".attn.c_proj",
            W[p + ".attn.c_proj"],
            W[p + ".attn.c_proj.bias"],
        )
        x = g.op("Add", [x, a], f"/{p}/Add")
        h = g.layer_norm(x, W, p + ".ln_2", eps)
        h = g.linear(h, p + ".mlp.c_fc", W[p + ".mlp.c_fc"], W[p + ".mlp.c_fc.bias"])
        h = gelu_new(g, h, f"{p}/mlp/act")
        h = g.linear(h, p + ".mlp.c_proj", W[p + ".mlp.c_proj"], W[p + ".mlp.c_proj.bias"])
        x = g.op("Add", [x, h], f"/{p}/Add_1")
    x = g.layer_norm(x, W, "transformer.ln_f", eps)
    logits = g.tied_logits(x, wte, W["transformer.wte"])
    g.output("logits", logits, F32, ["batch_size", seq, c["vocab_size"]])
    g.outputs = g.outputs[-1:] + g.outputs[:-1]
    return g.model()


def gelu_new(g, x, name):
    """GPT-2's tanh approximation."""
    x3 = g.op("Mul", [g.op("Mul", [x, x], f"/{name}/Mul"), x], f"/{name}/Mul_1")
    inner = g.op("Add", [x, g.op("Mul", [x3, g.fconst(0.044715)], f"/{name}/Mul_2")], f"/{name}/Add")
    th = g.op("Tanh", [g.op("Mul", [inner, g.fconst(np.sqrt(2 / np.pi))], f"/{name}/Mul_3")], f"/{name}/Tanh")
    one = g.op("Add", [th, g.fconst(1.0)], f"/{name}/Add_1")
    return g.op("Mul", [g.op("Mul", [x, g.fconst(0.5)], f"/{name}/Mul_4"), one], f"/{name}/Mul_5")


def gelu(g, x, name):
    """BART's exact (erf) GELU."""
    e = g.op("Erf", [g.op("Div", [x, g.fconst(np.sqrt(2))], f"/{name}/Div")], f"/{name}/Erf")
    one = g.op("Add", [e, g.fconst(1.0)], f"/{name}/Add")
    return g.op("Mul", [g.op("Mul", [x, one], f"/{name}/Mul"), g.fconst(0.5)], f"/{name}/Mul_1")


def merged(no_past, with_past, n_layers):
    """optimum's merged decoder (export_peer's merge: the If on use_cache_branch)."""
    from .export_peer import merge_decoders

    m = merge_decoders(no_past, with_past, n_layers)
    m.producer_name = "draftsmith hub_fixtures"
    return m


# ---- BART ----------------------------------------------------------------------------------------


def bart_attention(g, W, p, x, kv_src, bias, H, D, past_kv=None, cached_kv=None):
    """BartAttention: q scaled by D^-0.5; keys and values from kv_src, after past_kv (self-attention
    with a cache), or cached_kv as they are (cross-attention from the cache). Returns the output and
    the key/value heads it attended over."""
    q = g.linear(x, p + ".q_proj", W[p + ".q_proj"], W[p + ".q_proj.bias"])
    q = g.op("Mul", [q, g.fconst(D**-0.5)], f"/{p}/Mul")
    q = g.heads(q, H, D, p + "/q")
    if cached_kv is not None:
        k, v = cached_kv
    else:
        k = g.heads(g.linear(kv_src, p + ".k_proj", W[p + ".k_proj"], W[p + ".k_proj.bias"]), H, D, p + "/k")
        v = g.heads(g.linear(kv_src, p + ".v_proj", W[p + ".v_proj"], W[p + ".v_proj.bias"]), H, D, p + "/v")
        if past_kv is not None:
            k = g.op("Concat", [past_kv[0], k], f"/{p}/key_Concat", axis=2)
            v = g.op("Concat", [past_kv[1], v], f"/{p}/value_Concat", axis=2)
    s = g.op("MatMul", [q, g.op("Transpose", [k], f"/{p}/key_Transpose", perm=[0, 1, 3, 2])], f"/{p}/MatMul")
    a = g.op("MatMul", [g.softmax_f32(s, bias, p + "/softmax"), v], f"/{p}/MatMul_1")
    a = g.merge_heads(a, H, D, p + "/merge")
    return g.linear(a, p + ".out_proj", W[p + ".out_proj"], W[p + ".out_proj.bias"]), (k, v)


def bart_embed(g, W, part, ids, start):
    """Token embeddings (scale_embedding false: no sqrt(d) factor) plus learned positions (offset 2),
    then layernorm_embedding."""
    t = g.shape_dim(ids, 1, f"model/{part}/sequence_length")
    end = g.op("Add", [start, t], f"/model/{part}/embed_positions/Add")
    pos = g.op("Range", [start, end, g.const(1)], f"/model/{part}/embed_positions/Range")
    pos = g.op("Add", [pos, g.const(2)], f"/model/{part}/embed_positions/Add_1")
    shared = g.fweight("model.shared.weight", W["model.shared"])
    x = g.op("Gather", [shared, ids], f"/model/{part}/embed_tokens/Gather", axis=0)
    pe = g.op(
        "Gather",
        [g.fweight(f"model.{part}.embed_positions.weight", W[f"model.{part}.embed_positions"]), pos],
        f"/model/{part}/embed_positions/Gather",
        axis=0,
    )
    x = g.op("Add", [x, pe], f"/model/{part}/Add")
    return g.layer_norm(x, W, f"model.{part}.layernorm_embedding", 1e-5), t


def bart_ffn(g, W, p, x):
    h = gelu(g, g.linear(x, p + ".fc1", W[p + ".fc1"], W[p + ".fc1.bias"]), p + "/activation_fn")
    return g.linear(h, p + ".fc2", W[p + ".fc2"], W[p + ".fc2.bias"])


def bart_encoder_graph(c, W, weights="float"):
    g = Graph(np.float32, weights)
    H = c["encoder_attention_heads"]
    D = c["d_model"] // H
    ids = g.input("input_ids", I64, ["batch_size", "encoder_sequence_length"])
    mask = g.input("attention_mask", I64, ["batch_size", "encoder_sequence_length"])
    x, _ = bart_embed(g, W, "encoder", ids, g.const(0))
    bias = g.pad_bias(mask, "model/encoder/attention_mask")
    for i in range(c["encoder_layers"]):
        p = f"model.encoder.layers.{i}"
        a, _ = bart_attention(g, W, p + ".self_attn", x, x, bias, H, D)
        x = g.layer_norm(g.op("Add", [x, a], f"/{p}/Add"), W, p + ".self_attn_layer_norm", 1e-5)
        x = g.layer_norm(g.op("Add", [x, bart_ffn(g, W, p, x)], f"/{p}/Add_1"), W, p + ".final_layer_norm", 1e-5)
    g.output("last_hidden_state", x, F32, ["batch_size", "encoder_sequence_length", c["d_model"]])
    return g.model()


def bart_decoder_graph(c, W, with_past, weights="float"):
    """optimum's decoder (no past: cross-attention keys/values projected from encoder_hidden_states and
    returned as present.*.encoder) or decoder_with_past (they come in as past_key_values.*.encoder)."""
    g = Graph(np.float32, weights)
    L, H = c["decoder_layers"], c["decoder_attention_heads"]
    D = c["d_model"] // H
    ids = g.input("input_ids", I64, ["batch_size", "decoder_sequence_length"])
    emask = g.input("encoder_attention_mask", I64, ["batch_size", "encoder_sequence_length"])
    ehs = g.input("encoder_hidden_states", F32, ["batch_size", "encoder_sequence_length", c["d_model"]])
    past = []
    if with_past:
        for i in range(L):
            past.append(
                {
                    (kind, kv): g.input(
                        f"past_key_values.{i}.{kind}.{kv}",
                        F32,
                        [
                            "batch_size",
                            H,
                            "past_decoder_sequence_length" if kind == "decoder" else "encoder_sequence_length_out",
                            D,
                        ],
                    )
                    for kind in ("decoder", "encoder")
                    for kv in ("key", "value")
                }
            )
    start = g.shape_dim(past[0][("decoder", "key")], 2, "model/decoder/past_length") if past else g.const(0)
    x, t = bart_embed(g, W, "decoder", ids, start)
    total = g.op("Add", [start, t], "/model/decoder/total_length")
    self_bias = g.causal_bias(total, t, None, "model/decoder/causal_mask")
    cross_bias = g.pad_bias(emask, "model/decoder/encoder_attention_mask")
    dec_dims = ["batch_size", H, "past_decoder_sequence_length + decoder_sequence_length", D]
    enc_dims = ["batch_size", H, "encoder_sequence_length_out", D]
    for i in range(L):
        p = f"model.decoder.layers.{i}"
        pk = (past[i][("decoder", "key")], past[i][("decoder", "value")]) if past else None
        a, (k, v) = bart_attention(g, W, p + ".self_attn", x, x, self_bias, H, D, past_kv=pk)
        g.output(f"present.{i}.decoder.key", k, F32, dec_dims)
        g.output(f"present.{i}.decoder.value", v, F32, dec_dims)
        x = g.layer_norm(g.op("Add", [x, a], f"/{p}/Add"), W, p + ".self_attn_layer_norm", 1e-5)
        ck = (past[i][("encoder", "key")], past[i][("encoder", "value")]) if past else None
        a, (k, v) = bart_attention(g, W, p + ".encoder_attn", x, ehs, cross_bias, H, D, cached_kv=ck)
        if not past:
            g.output(f"present.{i}.encoder.key", k, F32, enc_dims)
            g.output(f"present.{i}.encoder.value", v, F32, enc_dims)
        x = g.layer_norm(g.op("Add", [x, a], f"/{p}/Add_1"), W, p + ".encoder_attn_layer_norm", 1e-5)
        x = g.layer_norm(g.op("Add", [x, bart_ffn(g, W, p, x)], f"/{p}/Add_2"), W, p + ".final_layer_norm", 1e-5)
    logits = g.tied_logits(x, "model.shared.weight", W["model.shared"])
    logits = g.op("Add", [logits, g.fweight("final_logits_bias", W["final_logits_bias"])], "/final_logits_bias/Add")
    g.output("logits", logits, F32, ["batch_size", "decoder_sequence_length", c["vocab_size"]])
    g.outputs = g.outputs[-1:] + g.outputs[:-1]
    return g.model()


# ---- the PyTorch references (the same math, with a cache) -------------------------------------------


def effective(W, kind, act=np.float32, lm_head_of=None):
    """The weights a variant computes with: q4 ones dequantized, float16 ones rounded (float32 numbers).
    lm_head_of: the tied embedding's name; its transposed copy is quantized like the other matrices."""
    out = {}
    for k, w in W.items():
        if w.ndim == 2 and kind == "q4" and k not in (lm_head_of, "model.embed_tokens"):  # tables stay float
            w = q4_pack(w, act)[2]
        out[k] = np.asarray(w, np.float32).astype(act).astype(np.float32) if act == np.float16 else w
    if lm_head_of:
        e = np.ascontiguousarray(W[lm_head_of].T)
        out["lm_head"] = q4_pack(e, act)[2] if kind == "q4" else out[lm_head_of].T.copy()
    return out


def _t(a):
    import torch

    return torch.from_numpy(np.ascontiguousarray(a))


def ref_llama(c, W, ids, mask, pos, past=None):
    """logits [B, T, V] and presents [(k, v)] for ids [B, T] after past (attention_mask covers both)."""
    import torch

    L, H, KV, D = c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps = c["rms_norm_eps"]

    def rms(x, w):
        return _t(w) * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def lin(x, k):
        y = x @ _t(W[k])
        return y + _t(W[k + ".bias"]) if k + ".bias" in W else y

    def rot(x):
        x1, x2 = x[..., : D // 2], x[..., D // 2 :]
        return torch.cat([-x2, x1], -1)

    B, T = ids.shape
    S = mask.shape[1]
    x = _t(W["model.embed_tokens"])[ids]
    f = pos[..., None].float() * _t(rope_inv_freq(c))
    emb = torch.cat([f, f], -1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    allowed = (torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None])[None, None] & (mask[:, None, None, :] == 1)
    bias = torch.where(allowed, torch.tensor(0.0), torch.tensor(NEG))
    presents = []
    for i in range(L):
        p, a = f"model.layers.{i}", f"model.layers.{i}.self_attn"
        h = rms(x, W[p + ".input_layernorm"])
        q = lin(h, a + ".q_proj").view(B, T, H, D).transpose(1, 2)
        k = lin(h, a + ".k_proj").view(B, T, KV, D).transpose(1, 2)
        v = lin(h, a + ".v_proj").view(B, T, KV, D).transpose(1, 2)
        if uses_rope(c, i):
            q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        if past is not None:
            k, v = torch.cat([past[i][0], k], 2), torch.cat([past[i][1], v], 2)
        presents.append((k, v))
        kr, vr = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)
        s = (q @ kr.transpose(-1, -2)) / np.sqrt(D) + bias
        ctx = (s.softmax(-1) @ vr).transpose(1, 2).reshape(B, T, H * D)
        x = x + lin(ctx, a + ".o_proj")
        h = rms(x, W[p + ".post_attention_layernorm"])
        m = f"{p}.mlp"
        x = x + lin(torch.nn.functional.silu(lin(h, m + ".gate_proj")) * lin(h, m + ".up_proj"), m + ".down_proj")
    x = rms(x, W["model.norm"])
    return x @ _t(W["lm_head"]), presents


def ref_gpt2(c, W, ids, mask, pos=None, past=None):
    import torch

    F = torch.nn.functional
    L, H, d = c["n_layer"], c["n_head"], c["n_embd"]
    D = d // H
    B, T = ids.shape
    S = mask.shape[1]
    if pos is None:  # the older export: positions from the past's length
        P = 0 if past is None else past[0][0].shape[2]
        pos = torch.arange(P, P + T)[None]
    x = _t(W["transformer.wte"])[ids] + _t(W["transformer.wpe"])[pos]
    allowed = (torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None])[None, None] & (mask[:, None, None, :] == 1)
    bias = torch.where(allowed, torch.tensor(0.0), torch.tensor(NEG))

    def ln(x, p):
        return F.layer_norm(x, (d,), _t(W[p + ".weight"]), _t(W[p + ".bias"]), c["layer_norm_epsilon"])

    def lin(x, k):
        return x @ _t(W[k]) + _t(W[k + ".bias"])

    presents = []
    for i in range(L):
        p = f"transformer.h.{i}"
        q, k, v = lin(ln(x, p + ".ln_1"), p + ".attn.c_attn").split(d, -1)
        q, k, v = (y.view(B, T, H, D).transpose(1, 2) for y in (q, k, v))
        if past is not None:
            k, v = torch.cat([past[i][0], k], 2), torch.cat([past[i][1], v], 2)
        presents.append((k, v))
        a = ((q @ k.transpose(-1, -2)) / np.sqrt(D) + bias).softmax(-1) @ v
        x = x + lin(a.transpose(1, 2).reshape(B, T, d), p + ".attn.c_proj")
        h = lin(ln(x, p + ".ln_2"), p + ".mlp.c_fc")
        h = 0.5 * h * (1 + torch.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h.pow(3))))
        x = x + lin(h, p + ".mlp.c_proj")
    return ln(x, "transformer.ln_f") @ _t(W["lm_head"]), presents


def _bart_attn(W, p, x, kv, bias, H, past=None, cached=None):
    import torch

    B, T, d = x.shape
    D = d // H

    def lin(y, k):
        return y @ _t(W[k]) + _t(W[k + ".bias"])

    q = (lin(x, p + ".q_proj") * D**-0.5).view(B, T, H, D).transpose(1, 2)
    if cached is not None:
        k, v = cached
    else:
        k = lin(kv, p + ".k_proj").view(B, -1, H, D).transpose(1, 2)
        v = lin(kv, p + ".v_proj").view(B, -1, H, D).transpose(1, 2)
        if past is not None:
            k, v = torch.cat([past[0], k], 2), torch.cat([past[1], v], 2)
    a = ((q @ k.transpose(-1, -2)) + bias).softmax(-1) @ v
    return lin(a.transpose(1, 2).reshape(B, T, d), p + ".out_proj"), (k, v)


def ref_bart_encoder(c, W, ids, mask):
    import torch

    F = torch.nn.functional
    d, H = c["d_model"], c["encoder_attention_heads"]

    def ln(x, p):
        return F.layer_norm(x, (d,), _t(W[p + ".weight"]), _t(W[p + ".bias"]), 1e-5)

    T = ids.shape[1]
    x = ln(
        _t(W["model.shared"])[ids] + _t(W["model.encoder.embed_positions"])[torch.arange(T) + 2],
        "model.encoder.layernorm_embedding",
    )
    bias = torch.where(mask[:, None, None, :] == 1, torch.tensor(0.0), torch.tensor(NEG))
    for i in range(c["encoder_layers"]):
        p = f"model.encoder.layers.{i}"
        x = ln(x + _bart_attn(W, p + ".self_attn", x, x, bias, H)[0], p + ".self_attn_layer_norm")
        h = x @ _t(W[p + ".fc1"]) + _t(W[p + ".fc1.bias"])
        h = F.gelu(h) @ _t(W[p + ".fc2"]) + _t(W[p + ".fc2.bias"])
        x = ln(x + h, p + ".final_layer_norm")
    return x


def ref_bart_decoder(c, W, ids, enc_mask, enc, past=None):
    """past: [(self k, self v, cross k, cross v)] per layer; returns logits and the same for the next step."""
    import torch

    F = torch.nn.functional
    d, H = c["d_model"], c["decoder_attention_heads"]

    def ln(x, p):
        return F.layer_norm(x, (d,), _t(W[p + ".weight"]), _t(W[p + ".bias"]), 1e-5)

    T = ids.shape[1]
    P = 0 if past is None else past[0][0].shape[2]
    x = _t(W["model.shared"])[ids] + _t(W["model.decoder.embed_positions"])[torch.arange(P, P + T) + 2]
    x = ln(x, "model.decoder.layernorm_embedding")
    S = P + T
    self_bias = torch.where(
        torch.arange(S)[None, :] <= torch.arange(P, S)[:, None], torch.tensor(0.0), torch.tensor(NEG)
    )
    cross_bias = torch.where(enc_mask[:, None, None, :] == 1, torch.tensor(0.0), torch.tensor(NEG))
    presents = []
    for i in range(c["decoder_layers"]):
        p = f"model.decoder.layers.{i}"
        a, (k, v) = _bart_attn(W, p + ".self_attn", x, x, self_bias, H, past=None if past is None else past[i][:2])
        x = ln(x + a, p + ".self_attn_layer_norm")
        a, (ck, cv) = _bart_attn(
            W, p + ".encoder_attn", x, enc, cross_bias, H, cached=None if past is None else past[i][2:]
        )
        x = ln(x + a, p + ".encoder_attn_layer_norm")
        h = F.gelu(x @ _t(W[p + ".fc1"]) + _t(W[p + ".fc1.bias"])) @ _t(W[p + ".fc2"]) + _t(W[p + ".fc2.bias"])
        x = ln(x + h, p + ".final_layer_norm")
        presents.append((k, v, ck, cv))
    return x @ _t(W["lm_head"]) + _t(W["final_logits_bias"]), presents


def ref_greedy(step, ids, n):
    """n greedy ids after ids [1, T] from step(ids, past) -> (logits, past), with the cache."""
    import torch

    logits, past = step(ids, None)
    out = []
    for _ in range(n):
        nxt = int(logits[0, -1].argmax())
        out.append(nxt)
        logits, past = step(torch.tensor([[nxt]]), past)
    return out


# ---- the fixtures ---------------------------------------------------------------------------------

GPT2_MERGES, SMOL_MERGES, QWEN_MERGES, BART_MERGES = 63, 47, 40, 59  # vocabularies of 320, 320, 318, 320


def gpt2_config(n_layer, vocab, eot, n_embd=32, n_head=4, n_positions=128):
    return {
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "bos_token_id": eot,
        "embd_pdrop": 0.1,
        "eos_token_id": eot,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": n_positions,
        "n_embd": n_embd,
        "n_head": n_head,
        "n_inner": None,
        "n_layer": n_layer,
        "n_positions": n_positions,
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "use_cache": True,
        "vocab_size": vocab,
    }


def smol_config(vocab, hidden=48, layers=2, heads=6, kv=2, inter=96):
    return {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.041666666666666664,
        "intermediate_size": inter,
        "is_llama_config": True,
        "max_position_embeddings": 8192,
        "mlp_bias": False,
        "model_type": "llama",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 2,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_interleaved": False,
        "rope_scaling": None,
        "rope_theta": 100000,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers.js_config": {"kv_cache_dtype": {"q4f16": "float16", "fp16": "float16"}},
        "use_cache": True,
        "vocab_size": vocab,
    }


def qwen_config(vocab, eot, im_end, hidden=32, layers=2, heads=4, kv=2, inter=96, window_layers=21):
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": eot,
        "eos_token_id": im_end,
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "max_position_embeddings": 32768,
        "max_window_layers": window_layers,
        "model_type": "qwen2",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "sliding_window": 32768,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers.js_config": {"kv_cache_dtype": {"q4f16": "float16", "fp16": "float16"}},
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": vocab,
    }


def bart_config(vocab, d=32, heads=4, ffn=64, enc=2, dec=2, positions=256):
    summarization = {
        "early_stopping": True,
        "length_penalty": 2.0,
        "max_length": 142,
        "min_length": 56,
        "no_repeat_ngram_size": 3,
        "num_beams": 4,
    }
    return {
        "_num_labels": 3,
        "activation_dropout": 0.0,
        "activation_function": "gelu",
        "add_bias_logits": False,
        "add_final_layer_norm": False,
        "architectures": ["BartForConditionalGeneration"],
        "attention_dropout": 0.0,
        "bos_token_id": 0,
        "classif_dropout": 0.0,
        "classifier_dropout": 0.0,
        "d_model": d,
        "decoder_attention_heads": heads,
        "decoder_ffn_dim": ffn,
        "decoder_layerdrop": 0.0,
        "decoder_layers": dec,
        "decoder_start_token_id": 2,
        "dropout": 0.1,
        "early_stopping": True,
        "encoder_attention_heads": heads,
        "encoder_ffn_dim": ffn,
        "encoder_layerdrop": 0.0,
        "encoder_layers": enc,
        "eos_token_id": 2,
        "extra_pos_embeddings": 2,
        "force_bos_token_to_be_generated": True,
        "forced_bos_token_id": 0,
        "forced_eos_token_id": 2,
        "gradient_checkpointing": False,
        "id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"},
        "init_std": 0.02,
        "is_encoder_decoder": True,
        "label2id": {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2},
        "length_penalty": 2.0,
        "max_length": 142,
        "max_position_embeddings": positions,
        "min_length": 56,
        "model_type": "bart",
        "no_repeat_ngram_size": 3,
        "normalize_before": False,
        "normalize_embedding": True,
        "num_beams": 4,
        "num_hidden_layers": enc,
        "output_past": True,
        "pad_token_id": 1,
        "prefix": " ",
        "scale_embedding": False,
        "static_position_embeddings": False,
        "task_specific_params": {"summarization": summarization},
        "use_cache": True,
        "vocab_size": vocab,
    }


# ---- BERT / MiniLM (an encoder, for BERTScore) ---------------------------------------------------------

# BERT's special tokens at their real ids: [PAD] 0, [unused0..98] 1..99, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103
BERT_SPECIALS = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# Two CJK characters (BertNormalizer puts spaces around each); any other one is [UNK]
BERT_CJK = "水雨"
BERT_SUFFIXES = ["##ed", "##ing", "##er", "##ly"]


def bert_vocab():
    """Specials, single characters, ## continuations, then the corpus's words (no merges: whole words)."""
    chars = list(BERT_PUNCT) + [str(d) for d in range(10)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    chars += list(BERT_CJK)
    cont = ["##" + ch for ch in "abcdefghijklmnopqrstuvwxyz0123456789"] + BERT_SUFFIXES
    words = sorted({w for w in re.findall(r"[a-z]+", CORPUS.lower()) if len(w) > 1})
    return BERT_SPECIALS + chars + cont + words


def _is_punct(ch):
    """BertPreTokenizer's punctuation: ASCII non-alphanumeric printables, or a Unicode P* category."""
    import unicodedata

    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPiece:
    """tokenizers' BertNormalizer (clean text, CJK spacing, accents stripped with lowercase) +
    BertPreTokenizer + WordPiece (greedy longest match, ## continuations, [UNK] for the whole word)."""

    def __init__(self, vocab):
        self.vocab = vocab
        self.ids = {t: i for i, t in enumerate(vocab)}

    def normalize(self, text):
        import unicodedata

        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\t\n\r"):
                continue
            if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
                out.append(" ")
            elif _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        text = unicodedata.normalize("NFD", "".join(out))
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
        return text.lower()

    def pre_tokenize(self, text):
        words = []
        for chunk in text.split():
            cur = ""
            for ch in chunk:
                if _is_punct(ch):
                    if cur:
                        words.append(cur)
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def word_ids(self, word):
        if len(word) > 100:
            return [self.ids["[UNK]"]]
        out, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                piece = ("##" if start > 0 else "") + word[start:end]
                if piece in self.ids:
                    found = self.ids[piece]
                    break
                end -= 1
            if found is None:
                return [self.ids["[UNK]"]]
            out.append(found)
            start = end
        return out

    def encode(self, text):
        """With [CLS] and [SEP], as BERT's TemplateProcessing adds them."""
        ids = [i for w in self.pre_tokenize(self.normalize(text)) for i in self.word_ids(w)]
        return [self.ids["[CLS]"]] + ids + [self.ids["[SEP]"]]


def bert_tokenizer():
    """sentence-transformers/all-MiniLM-L6-v2's tokenizer files (Xenova's copy) with a tiny vocabulary."""
    vocab = bert_vocab()
    wp = WordPiece(vocab)
    specials = {t: wp.ids[t] for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")}
    tok = tokenizer_json(
        [added(i, t) for t, i in sorted(specials.items(), key=lambda kv: kv[1])],
        {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        },
        {"type": "BertPreTokenizer"},
        {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 1}},
            ],
            "special_tokens": {t: {"id": t, "ids": [specials[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
        },
        {"type": "WordPiece", "prefix": "##", "cleanup": True},
        {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {t: i for i, t in enumerate(vocab)},
        },
    )
    files = {
        "tokenizer.json": tok,
        "tokenizer_config.json": {
            "clean_up_tokenization_spaces": True,
            "cls_token": "[CLS]",
            "do_basic_tokenize": True,
            "do_lower_case": True,
            "mask_token": "[MASK]",
            "model_max_length": 512,
            "never_split": None,
            "pad_token": "[PAD]",
            "sep_token": "[SEP]",
            "strip_accents": None,
            "tokenize_chinese_chars": True,
            "tokenizer_class": "BertTokenizer",
            "unk_token": "[UNK]",
        },
        "special_tokens_map.json": {
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
            "pad_token": "[PAD]",
            "sep_token": "[SEP]",
            "unk_token": "[UNK]",
        },
        "vocab.txt": "".join(t + "\n" for t in vocab),
    }
    return files, {"wp": wp, "size": len(vocab), "cls": specials["[CLS]"], "sep": specials["[SEP]"]}


def bert_config(vocab, hidden=32, layers=2, heads=4, inter=64, positions=128):
    """all-MiniLM-L6-v2's config.json at a tiny size (the real: 384 hidden, 6 layers, 12 heads, 1536)."""
    return {
        "_name_or_path": "sentence-transformers/all-MiniLM-L6-v2",
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "gradient_checkpointing": False,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": inter,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": positions,
        "model_type": "bert",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "transformers_version": "4.29.2",
        "type_vocab_size": 2,
        "use_cache": True,
        "vocab_size": vocab,
    }


def bert_weights(c, seed):
    r = Rng(seed)
    d, f = c["hidden_size"], c["intermediate_size"]
    W = {
        "embeddings.word_embeddings": r.normal((c["vocab_size"], d), 1.0),
        "embeddings.position_embeddings": r.normal((c["max_position_embeddings"], d), 0.3),
        "embeddings.token_type_embeddings": r.normal((c["type_vocab_size"], d), 0.3),
    }

    def ln(p):
        W[p + ".weight"], W[p + ".bias"] = r.around_one(d), r.normal((d,), 0.1)

    def lin(p, a, b):
        W[p], W[p + ".bias"] = r.normal((a, b), 1 / np.sqrt(a)), r.normal((b,), 0.1)

    ln("embeddings.LayerNorm")
    for i in range(c["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        for name in ("query", "key", "value"):
            lin(f"{p}.attention.self.{name}", d, d)
        lin(f"{p}.attention.output.dense", d, d)
        ln(f"{p}.attention.output.LayerNorm")
        lin(f"{p}.intermediate.dense", d, f)
        lin(f"{p}.output.dense", f, d)
        ln(f"{p}.output.LayerNorm")
    return W


def bert_graph(c, W, weights="float"):
    """BertModel as optimum exports it for feature extraction: input_ids, attention_mask, token_type_ids
    -> last_hidden_state (the last layer's output). Post-LN layers, exact (erf) GELU, scores / sqrt(D)."""
    g = Graph(np.float32, weights)
    d, H = c["hidden_size"], c["num_attention_heads"]
    D, eps = d // H, c["layer_norm_eps"]
    seq = "sequence_length"
    ids = g.input("input_ids", I64, ["batch_size", seq])
    mask = g.input("attention_mask", I64, ["batch_size", seq])
    types = g.input("token_type_ids", I64, ["batch_size", seq])
    t = g.shape_dim(ids, 1, "embeddings/sequence_length")
    pos = g.op("Range", [g.const(0), t, g.const(1)], "/embeddings/Range")

    def gather(name, index):
        w = g.fweight(name + ".weight", W[name])
        return g.op("Gather", [w, index], f"/{name}/Gather", axis=0)

    x = g.op(
        "Add",
        [gather("embeddings.word_embeddings", ids), gather("embeddings.token_type_embeddings", types)],
        "/embeddings/Add",
    )
    x = g.op("Add", [x, gather("embeddings.position_embeddings", pos)], "/embeddings/Add_1")
    x = g.layer_norm(x, W, "embeddings.LayerNorm", eps)
    bias = g.pad_bias(mask, "extended_attention_mask")
    for i in range(c["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        s = f"{p}.attention.self"
        q, k, v = (
            g.heads(g.linear(x, f"{s}.{n}", W[f"{s}.{n}"], W[f"{s}.{n}.bias"]), H, D, f"{s}/{n}")
            for n in ("query", "key", "value")
        )
        sc = g.op("MatMul", [q, g.op("Transpose", [k], f"/{s}/Transpose", perm=[0, 1, 3, 2])], f"/{s}/MatMul")
        sc = g.op("Div", [sc, g.fconst(np.sqrt(D))], f"/{s}/Div")
        a = g.merge_heads(
            g.op("MatMul", [g.softmax_f32(sc, bias, s + "/softmax"), v], f"/{s}/MatMul_1"), H, D, s + "/merge"
        )
        o = f"{p}.attention.output"
        a = g.linear(a, o + ".dense", W[o + ".dense"], W[o + ".dense.bias"])
        x = g.layer_norm(g.op("Add", [a, x], f"/{o}/Add"), W, o + ".LayerNorm", eps)
        h = g.linear(x, p + ".intermediate.dense", W[p + ".intermediate.dense"], W[p + ".intermediate.dense.bias"])
        h = gelu(g, h, p + "/intermediate/intermediate_act_fn")
        h = g.linear(h, p + ".output.dense", W[p + ".output.dense"], W[p + ".output.dense.bias"])
        x = g.layer_norm(g.op("Add", [h, x], f"/{p}/output/Add"), W, p + ".output.LayerNorm", eps)
    g.output("last_hidden_state", x, F32, ["batch_size", seq, d])
    return g.model()


def ref_bert(c, W, ids, mask, types=None):
    """last_hidden_state [B, T, d] for ids [B, T] (PyTorch, as BertModel computes it)."""
    import torch

    F = torch.nn.functional
    d, H = c["hidden_size"], c["num_attention_heads"]
    D, eps = d // H, c["layer_norm_eps"]
    B, T = ids.shape
    types = torch.zeros_like(ids) if types is None else types

    def ln(x, p):
        return F.layer_norm(x, (d,), _t(W[p + ".weight"]), _t(W[p + ".bias"]), eps)

    def lin(x, p):
        return x @ _t(W[p]) + _t(W[p + ".bias"])

    x = _t(W["embeddings.word_embeddings"])[ids] + _t(W["embeddings.token_type_embeddings"])[types]
    x = ln(x + _t(W["embeddings.position_embeddings"])[torch.arange(T)], "embeddings.LayerNorm")
    bias = torch.where(mask[:, None, None, :] == 1, torch.tensor(0.0), torch.tensor(NEG))
    for i in range(c["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        s = f"{p}.attention.self"
        q, k, v = (lin(x, f"{s}.{n}").view(B, T, H, D).transpose(1, 2) for n in ("query", "key", "value"))
        a = ((q @ k.transpose(-1, -2)) / np.sqrt(D) + bias).softmax(-1) @ v
        a = lin(a.transpose(1, 2).reshape(B, T, d), f"{p}.attention.output.dense")
        x = ln(a + x, f"{p}.attention.output.LayerNorm")
        h = lin(F.gelu(lin(x, f"{p}.intermediate.dense")), f"{p}.output.dense")
        x = ln(h + x, f"{p}.output.LayerNorm")
    return x


# The pairs the BERTScore reference scores: a near paraphrase, a short draft, one word, repeated words,
# accents and CJK characters (one outside the vocabulary), an identical pair.
BERTSCORE_PAIRS = [
    ("The rain fell on the quiet town.", "The rain fell over the quiet town."),
    ("the river", "The river rose over the old bridge."),
    ("draft", "The draft was better than the last one."),
    ("the the the rain rain", "the rain, the river"),
    ("Café naïve 水 雪!", "cafe naive 水 rain"),
    ("She kept the short ones.", "She kept the short ones."),
]


def bertscore_idf(refs, cls, sep):
    """bert_score's get_idf_dict: idf(w) = log((M + 1) / (df(w) + 1)) over the M references' token ids
    ([CLS] and [SEP] included, so their idf is log 1 = 0); a token no reference has: log(M + 1)."""
    import math
    from collections import defaultdict

    df = Counter()
    for ids in refs:
        df.update(set(ids))
    m = len(refs)
    idf = defaultdict(lambda: math.log((m + 1) / 1))
    idf.update({i: math.log((m + 1) / (n + 1)) for i, n in df.items()})
    return idf


def greedy_cos_idf(ref_emb, ref_idf, hyp_emb, hyp_idf):
    """bert_score's greedy_cos_idf for one pair (a batch of one: no padding): embeddings L2-normalised,
    sim = hyp . ref^T, each token's best match, weighted by its idf over the sum of idf; F = 2PR/(P+R),
    0 where NaN; P and R 0 for an empty side (only [CLS] and [SEP])."""
    import torch

    ref = ref_emb / torch.norm(ref_emb, dim=-1).unsqueeze(-1)
    hyp = hyp_emb / torch.norm(hyp_emb, dim=-1).unsqueeze(-1)
    sim = torch.bmm(hyp, ref.transpose(1, 2))
    word_precision = sim.max(dim=2)[0]
    word_recall = sim.max(dim=1)[0]
    hyp_idf = hyp_idf / hyp_idf.sum(dim=1, keepdim=True)
    ref_idf = ref_idf / ref_idf.sum(dim=1, keepdim=True)
    P = (word_precision * hyp_idf).sum(dim=1)
    R = (word_recall * ref_idf).sum(dim=1)
    F = 2 * P * R / (P + R)
    if hyp_emb.shape[1] == 2 or ref_emb.shape[1] == 2:
        P, R = P * 0, R * 0
    F = F.masked_fill(torch.isnan(F), 0.0)
    return float(P[0]), float(R[0]), float(F[0])


def bertscore_reference(c, W, wp, cls, sep, pairs):
    """BERTScore (bert_score.score, no baseline rescaling) of `pairs` with idf off and on: per pair and the
    corpus mean, the embeddings in float64 from PyTorch's float32 last layer."""
    import torch
    from collections import defaultdict

    def embed(ids):
        x = torch.tensor([ids])
        with torch.no_grad():
            return ref_bert(c, W, x, torch.ones_like(x)).double()

    hyp_ids = [wp.encode(h.strip()) for h, _ in pairs]
    ref_ids = [wp.encode(r.strip()) for _, r in pairs]
    out = {"pairs": [{"hypothesis": h, "reference": r} for h, r in pairs], "hyp_ids": hyp_ids, "ref_ids": ref_ids}
    for name, idf_on in (("idf_off", False), ("idf_on", True)):
        if idf_on:
            idf = bertscore_idf(ref_ids, cls, sep)
        else:
            idf = defaultdict(lambda: 1.0)
            idf[sep], idf[cls] = 0, 0
        rows = []
        for h, r in zip(hyp_ids, ref_ids):
            hw = torch.tensor([[idf[i] for i in h]], dtype=torch.float64)
            rw = torch.tensor([[idf[i] for i in r]], dtype=torch.float64)
            P, R, F = greedy_cos_idf(embed(r), rw, embed(h), hw)
            rows.append({"P": round(P, 9), "R": round(R, 9), "F": round(F, 9)})
        mean = {k: round(sum(x[k] for x in rows) / len(rows), 9) for k in ("P", "R", "F")}
        out[name] = {"per_pair": rows, "corpus": mean}
    return out


# dtype -> (file suffix, activation dtype, weights); transformers.js's names (utils/dtypes.js)
DTYPES = {
    "fp32": ("", np.float32, "float"),
    "fp16": ("_fp16", np.float16, "float"),
    "q8": ("_quantized", np.float32, "int8"),
    "int8": ("_int8", np.float32, "int8"),
    "uint8": ("_uint8", np.float32, "uint8"),
    "q4": ("_q4", np.float32, "q4"),
    "q4f16": ("_q4f16", np.float16, "q4"),
}


def head_dim(c):
    """The config with its head size: the family's own head_dim (Gemma, Qwen3) or hidden / heads."""
    c = dict(c)
    c["head_dim"] = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    return c


# The nine families beyond GPT-2, Llama and Qwen2: the real repository's config fields, tokenizer conventions
# and chat template; the graph is llama_graph's block (its I/O is the families' export I/O), not the family's
# own numerics (Gemma's scaled embeddings and (1 + w) norms, Granite's multipliers, OLMo 2's and Qwen3's
# query/key norms are left out), with SmolLM3's NoPE layers and untied output layers where the family has them.
NUMERICS = (
    "; the graph is the llama-style block (RMSNorm, rotary, SwiGLU) with this family's inputs, outputs and cache "
    "shapes: it tests layout, tokenizer and cache handling, not the family's numerics"
)
FAMILY_FIXTURES = [
    (
        "qwen3",
        "Qwen3-0.6B",
        "onnx-community/Qwen3-0.6B-ONNX",
        "head_dim (16) set apart from hidden / heads (8), "
        "as the real 128 against 1024 / 16; 2 query heads on 1 key-value head; no q/k/v biases; its thinking tokens "
        "(<think>, </think>) are added tokens that are not special",
    ),
    (
        "mistral",
        "Mistral-7B-Instruct-v0.3",
        "mistralai/Mistral-7B-Instruct-v0.3",
        "a SentencePiece-style BPE "
        "(Metaspace, byte fallback) whose post-processor puts <s> first; [INST] and [/INST] are special tokens; a "
        "template without a system role; untied output layer; the [control_N] tokens and tokenizer.model left out",
    ),
    (
        "phi3",
        "Phi-3-mini-4k-instruct",
        "microsoft/Phi-3-mini-4k-instruct",
        "Llama 2's SentencePiece-style BPE "
        "without a start token added (add_bos_token false), Phi-3's chat markers after it (<|end|>, <|user|>, "
        "<|assistant|>), three end tokens in generation_config; as many key-value heads as heads; a table padded "
        "past the tokenizer to a multiple of 64; untied output layer",
    ),
    (
        "gemma",
        "gemma-1.1-2b-it",
        "google/gemma-1.1-2b-it",
        "Gemma's tokens at their ids (<bos> 2, <eos> 1, "
        "<start_of_turn> 106, <end_of_turn> 107), spaces as \u2581 with nothing prepended, <bos> added; head_dim (16) "
        "set apart from hidden / heads (8), as gemma-7b's; a template that refuses a system turn",
    ),
    (
        "gemma2",
        "gemma-2-2b-it",
        "google/gemma-2-2b-it",
        "Gemma 2's config (soft-capping, query_pre_attn_scalar, "
        "sliding_window, cache_implementation hybrid) and <end_of_turn> as a second end token; head_dim (8) set "
        "apart from hidden / heads (4)",
    ),
    (
        "gemma3_text",
        "gemma-3-1b-it",
        "onnx-community/gemma-3-1b-it-ONNX",
        "model_type gemma3_text: 4 heads of "
        "16 on one key-value head, hidden 16 (the real 4 x 256 on 1, hidden 1152); <start_of_turn> 105, "
        "<end_of_turn> 106; a template that folds a system turn into the first user turn",
    ),
    (
        "smollm3",
        "SmolLM3-3B",
        "HuggingFaceTB/SmolLM3-3B-ONNX",
        "Llama 3's byte-level BPE (digits in threes) "
        "with SmolLM3's <|im_start|>/<|im_end|> at Llama 3's reserved ids, no start token (bos_token null); every "
        "fourth layer without rotary embeddings (no_rope_layers, NoPE: the graph does the same); an abridged "
        "template (the metadata block without today's date)",
    ),
    (
        "olmo2",
        "OLMo-2-0425-1B-Instruct",
        "allenai/OLMo-2-0425-1B-Instruct",
        "cl100k's byte-level BPE with "
        "<|endoftext|> as start and end token and <|pad|> apart; the template writes <|endoftext|> first; "
        "as many key-value heads as heads; untied output layer",
    ),
    (
        "granite",
        "granite-3.0-2b-instruct",
        "ibm-granite/granite-3.0-2b-instruct",
        "StarCoder's tokens at ids "
        "0-18 (<|end_of_text|> 0: start, end and padding), <|start_of_role|>/<|end_of_role|> after the merges; "
        "Granite's multipliers in config.json; an abridged template (no tools or documents)",
    ),
]


def family_catalogue():
    return [
        {
            "name": name,
            "imitates": imitates,
            "family": fam,
            "seed": 61 + k,
            "layout": f"onnx/model.onnx and model_q4.onnx: decoder with past, position_ids, {how}{NUMERICS}",
            "graphs": {"model": ["fp32", "q4"]},
            "load": [{"dtype": "fp32"}, {"dtype": "q4"}],
        }
        for k, (fam, name, imitates, how) in enumerate(FAMILY_FIXTURES)
    ]


def catalogue():
    """The fixture repositories: (name, what it imitates, files and graphs). Seeds fixed per weight set:
    repositories imitating the same model share weights, as their real counterparts would."""
    return [
        {
            "name": "gpt2",
            "imitates": "Xenova/gpt2",
            "family": "gpt2",
            "seed": 11,
            "layers": 2,
            "position_ids": True,
            "layout": (
                "the older Xenova file names: optimum's merged decoder (If on use_cache_branch) in "
                "onnx/decoder_model_merged*.onnx, beside the unmerged decoder_model*.onnx (no past) and "
                "decoder_with_past_model*.onnx; no onnx/model.onnx"
            ),
            "graphs": {
                "decoder_model_merged": ["fp32", "q8"],
                "decoder_model": ["fp32", "q8"],
                "decoder_with_past_model": ["fp32", "q8"],
            },
            "load": [
                {"dtype": "fp32", "model_file_name": "decoder_model_merged"},
                {"dtype": "q8", "model_file_name": "decoder_model_merged"},
            ],
        },
        {
            "name": "gpt2-model",
            "imitates": "Xenova/gpt2",
            "family": "gpt2",
            "seed": 11,
            "layers": 2,
            "position_ids": True,
            "layout": (
                "optimum's merged decoder (with use_cache_branch and position_ids) saved as onnx/model.onnx "
                "and onnx/model_quantized.onnx, the names transformers.js 3+ looks for by default"
            ),
            "graphs": {"model": ["fp32", "q8"]},
            "load": [{"dtype": "fp32"}, {"dtype": "q8"}],
        },
        {
            "name": "distilgpt2",
            "imitates": "Xenova/distilgpt2",
            "family": "gpt2",
            "seed": 12,
            "layers": 2,
            "position_ids": False,
            "layout": (
                "an older optimum export: onnx/decoder_model_merged*.onnx with use_cache_branch and NO "
                "position_ids input (positions count from the past's length inside the graph, so left padding "
                "shifts them, as in the real files)"
            ),
            "graphs": {"decoder_model_merged": ["fp32", "q8"]},
            "load": [
                {"dtype": "fp32", "model_file_name": "decoder_model_merged"},
                {"dtype": "q8", "model_file_name": "decoder_model_merged"},
            ],
        },
        {
            "name": "SmolLM2-135M-Instruct",
            "imitates": "HuggingFaceTB/SmolLM2-135M-Instruct",
            "family": "llama",
            "seed": 21,
            "layout": (
                "onnx/model*.onnx: decoder with past (zero-length on the first step), position_ids, "
                "grouped-query attention (6 query heads on 2 key-value heads, as the real 9 on 3); "
                "no model_quantized.onnx, as in the real repository"
            ),
            "graphs": {"model": ["fp32", "fp16", "int8", "uint8", "q4", "q4f16"]},
            "load": [{"dtype": d} for d in ("fp32", "fp16", "int8", "uint8", "q4", "q4f16")],
        },
        {
            "name": "Qwen2.5-0.5B-Instruct",
            "imitates": "onnx-community/Qwen2.5-0.5B-Instruct",
            "family": "qwen2",
            "seed": 31,
            "layout": (
                "onnx/model*.onnx as transformers.js's conversions write them: q/k/v biases, 4 query heads on "
                "2 key-value heads; config vocab_size (384) larger than the tokenizer (318), as Qwen's "
                "151936 > 151665"
            ),
            "graphs": {"model": ["fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16"]},
            "load": [{"dtype": d} for d in ("fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16")],
        },
        {
            "name": "Qwen2.5-0.5B-Instruct-num-logits",
            "imitates": "onnx-community/Qwen2.5-0.5B-Instruct",
            "family": "qwen2",
            "seed": 31,
            "logits_to_keep": True,
            "layout": (
                "the same model, its graphs also taking num_logits_to_keep (int64 scalar: logits for the last "
                "N positions only, 0 for all) as onnxruntime-genai and newer transformers.js exports do"
            ),
            "graphs": {"model": ["fp32", "q4f16"]},
            "load": [{"dtype": "fp32"}, {"dtype": "q4f16"}],
        },
        {
            "name": "distilbart-cnn-12-6",
            "imitates": "Xenova/distilbart-cnn-12-6",
            "family": "bart",
            "seed": 41,
            "layout": (
                "onnx/encoder_model*.onnx and optimum's merged onnx/decoder_model_merged*.onnx (use_cache_branch, "
                "the encoder presents placeholders on the cached branch); raw logits (+ final_logits_bias); "
                "2 encoder and 2 decoder layers (the real 12 and 6)"
            ),
            "graphs": {"encoder_model": ["fp32", "q8"], "decoder_model_merged": ["fp32", "q8"]},
            "load": [{"dtype": "fp32"}, {"dtype": "q8"}],
        },
        {
            "name": "all-MiniLM-L6-v2",
            "imitates": "Xenova/all-MiniLM-L6-v2",
            "family": "bert",
            "seed": 51,
            "layout": (
                "an encoder for feature extraction (BERTScore): onnx/model*.onnx taking input_ids, attention_mask and"
                " token_type_ids, giving last_hidden_state; a WordPiece tokenizer.json with [CLS], [SEP], [PAD], [UNK]"
                " and [MASK] at BERT's ids, vocab.txt; 2 layers of 32 (the real 6 of 384), no generation_config.json"
            ),
            "graphs": {"model": ["fp32", "q8"]},
            "load": [{"dtype": "fp32"}, {"dtype": "q8"}],
        },
    ] + family_catalogue()


# ---- the families beyond GPT-2, Llama and Qwen2 (hub_family_specs.py: their real tokens and fields) -------

N_MERGES = 40


def _entry(t):
    return {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False}


def qwen3_parts():
    tok, info = bytelevel_family_tokenizer(
        N_MERGES,
        [],
        S.QWEN3_SPECIALS,
        S.QWEN3_NOT_SPECIAL,
        "qwen",
        {
            "add_bos_token": False,
            "add_prefix_space": False,
            "additional_special_tokens": S.QWEN3_SPECIALS[1:14],
            "bos_token": None,
            "chat_template": S.QWEN3_TEMPLATE,
            "clean_up_tokenization_spaces": False,
            "eos_token": "<|im_end|>",
            "errors": "replace",
            "model_max_length": 131072,
            "pad_token": "<|endoftext|>",
            "split_special_tokens": False,
            "tokenizer_class": "Qwen2Tokenizer",
            "unk_token": None,
        },
        {
            "additional_special_tokens": S.QWEN3_SPECIALS[1:14],
            "eos_token": _entry("<|im_end|>"),
            "pad_token": _entry("<|endoftext|>"),
        },
    )
    ids = info["specials"]
    vocab = -(-info["size"] // 128) * 128  # padded to a multiple of 128, as Qwen's 151936
    return S.qwen3_config(vocab, ids), S.qwen3_generation(ids), tok, info


def llama_sp_config(bos, eos, unk, chat_template, add_bos, **extra):
    """tokenizer_config.json of a LlamaTokenizer-class repository (Mistral, Phi-3)."""
    return {
        "add_bos_token": add_bos,
        "add_eos_token": False,
        "bos_token": bos,
        "chat_template": chat_template,
        "clean_up_tokenization_spaces": False,
        "eos_token": eos,
        "legacy": False,
        "model_max_length": 1000000000000000019884624838656,
        "pad_token": None,
        "sp_model_kwargs": {},
        "spaces_between_special_tokens": False,
        "tokenizer_class": "LlamaTokenizer",
        "unk_token": unk,
        "use_default_system_prompt": False,
        **extra,
    }


def mistral_parts():
    tok, info = sp_family_tokenizer(
        N_MERGES,
        S.MISTRAL_SPECIALS,
        [],
        "metaspace",
        "<s>",
        llama_sp_config("<s>", "</s>", "<unk>", S.MISTRAL_TEMPLATE, True),
        {"bos_token": _entry("<s>"), "eos_token": _entry("</s>"), "unk_token": _entry("<unk>")},
    )
    return S.mistral_config(info["size"]), {"_from_model_config": True, "bos_token_id": 1, "eos_token_id": 2}, tok, info


def phi3_parts():
    tok, info = sp_family_tokenizer(
        N_MERGES,
        S.LLAMA_SP_SPECIALS,
        S.PHI3_ADDED,
        "metaspace",
        None,
        llama_sp_config(
            "<s>", "<|endoftext|>", "<unk>", S.PHI3_TEMPLATE, False, pad_token="<|endoftext|>", padding_side="left"
        ),
        {
            "bos_token": _entry("<s>"),
            "eos_token": _entry("<|endoftext|>"),
            "pad_token": _entry("<|endoftext|>"),
            "unk_token": _entry("<unk>"),
        },
    )
    ids = info["specials"]
    vocab = -(-info["size"] // 64) * 64  # Phi-3 pads its table to a multiple of 64 (32064 for 32011 tokens)
    return S.phi3_config(vocab, ids), S.phi3_generation(ids), tok, info


def gemma_tokenizer(specials, template, extra=None):
    return sp_family_tokenizer(
        N_MERGES,
        specials,
        [],
        "gemma",
        "<bos>",
        {
            "add_bos_token": True,
            "add_eos_token": False,
            "additional_special_tokens": ["<start_of_turn>", "<end_of_turn>"],
            "bos_token": "<bos>",
            "chat_template": template,
            "clean_up_tokenization_spaces": False,
            "eos_token": "<eos>",
            "model_max_length": 1000000000000000019884624838656,
            "pad_token": "<pad>",
            "sp_model_kwargs": {},
            "spaces_between_special_tokens": False,
            "tokenizer_class": "GemmaTokenizer",
            "unk_token": "<unk>",
            "use_default_system_prompt": False,
            **(extra or {}),
        },
        {
            "additional_special_tokens": ["<start_of_turn>", "<end_of_turn>"],
            "bos_token": _entry("<bos>"),
            "eos_token": _entry("<eos>"),
            "pad_token": _entry("<pad>"),
            "unk_token": _entry("<unk>"),
        },
    )


def gemma_parts():
    tok, info = gemma_tokenizer(S.GEMMA_SPECIALS, S.GEMMA_TEMPLATE)
    return S.gemma_config(info["size"]), S.gemma_generation(1), tok, info


def gemma2_parts():
    tok, info = gemma_tokenizer(S.GEMMA_SPECIALS, S.GEMMA_TEMPLATE)
    ids = info["specials"]
    return S.gemma2_config(info["size"], ids), S.gemma_generation([1, ids["<end_of_turn>"]]), tok, info


def gemma3_parts():
    tok, info = gemma_tokenizer(S.GEMMA3_SPECIALS, S.GEMMA3_TEMPLATE)
    ids = info["specials"]
    return S.gemma3_config(info["size"], ids), S.gemma3_generation(ids), tok, info


def smollm3_parts():
    tok, info = bytelevel_family_tokenizer(
        N_MERGES,
        [],
        S.SMOLLM3_SPECIALS,
        S.SMOLLM3_NOT_SPECIAL,
        "cl100k",
        {
            "bos_token": None,
            "chat_template": S.SMOLLM3_TEMPLATE,
            "clean_up_tokenization_spaces": True,
            "eos_token": "<|im_end|>",
            "model_input_names": ["input_ids", "attention_mask"],
            "model_max_length": 131072,
            "pad_token": "<|im_end|>",
            "tokenizer_class": "PreTrainedTokenizerFast",
        },
        {"eos_token": _entry("<|im_end|>"), "pad_token": _entry("<|im_end|>")},
    )
    ids = info["specials"]
    return S.smollm3_config(info["size"], ids), S.smollm3_generation(ids), tok, info


def olmo2_parts():
    tok, info = bytelevel_family_tokenizer(
        N_MERGES,
        [],
        S.OLMO2_SPECIALS,
        set(),
        "cl100k",
        {
            "add_bos_token": False,
            "add_eos_token": False,
            "bos_token": "<|endoftext|>",
            "chat_template": S.OLMO2_TEMPLATE,
            "clean_up_tokenization_spaces": False,
            "eos_token": "<|endoftext|>",
            "model_max_length": 1000000000000000019884624838656,
            "pad_token": "<|pad|>",
            "tokenizer_class": "GPT2Tokenizer",
            "unk_token": "<|endoftext|>",
        },
        {
            "bos_token": _entry("<|endoftext|>"),
            "eos_token": _entry("<|endoftext|>"),
            "pad_token": _entry("<|pad|>"),
            "unk_token": _entry("<|endoftext|>"),
        },
    )
    ids = info["specials"]
    vocab = -(-info["size"] // 128) * 128  # OLMo 2's table: 100352 rows for 100278 tokens
    return S.olmo2_config(vocab, ids), S.olmo2_generation(ids), tok, info


def granite_parts():
    tok, info = bytelevel_family_tokenizer(
        N_MERGES,
        S.GRANITE_LEAD,
        S.GRANITE_TRAIL,
        set(),
        "digits",
        {
            "add_bos_token": False,
            "add_prefix_space": False,
            "additional_special_tokens": S.GRANITE_TRAIL,
            "bos_token": "<|end_of_text|>",
            "chat_template": S.GRANITE_TEMPLATE,
            "clean_up_tokenization_spaces": True,
            "eos_token": "<|end_of_text|>",
            "model_max_length": 9223372036854775807,
            "pad_token": "<|end_of_text|>",
            "padding_side": "left",
            "tokenizer_class": "GPT2Tokenizer",
            "unk_token": "<|end_of_text|>",
        },
        {
            "additional_special_tokens": S.GRANITE_TRAIL,
            "bos_token": _entry("<|end_of_text|>"),
            "eos_token": _entry("<|end_of_text|>"),
            "pad_token": _entry("<|end_of_text|>"),
            "unk_token": _entry("<|end_of_text|>"),
        },
    )
    gen = {"_from_model_config": True, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0}
    return S.granite_config(info["size"]), gen, tok, info


# model_type -> (config, generation_config, tokenizer files, tokenizer info); the graph is llama_graph's
FAMILY_PARTS = {
    "qwen3": qwen3_parts,
    "mistral": mistral_parts,
    "phi3": phi3_parts,
    "gemma": gemma_parts,
    "gemma2": gemma2_parts,
    "gemma3_text": gemma3_parts,
    "smollm3": smollm3_parts,
    "olmo2": olmo2_parts,
    "granite": granite_parts,
}
LLAMA_LIKE = {"llama", "qwen2", *FAMILY_PARTS}


def dump(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_files(folder, files):
    os.makedirs(folder, exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(content if isinstance(content, str) else dump(content))


def family_parts(entry):
    """config, generation_config, tokenizer files and info, weights for a catalogue entry."""
    fam = entry["family"]
    if fam == "gpt2":
        tok, info = gpt2_tokenizer(GPT2_MERGES)
        c = gpt2_config(entry["layers"], info["size"], info["eos"])
        gen = {"_from_model_config": True, "bos_token_id": info["eos"], "eos_token_id": info["eos"]}
        return c, gen, tok, info, gpt2_weights(c, entry["seed"])
    if fam == "llama":
        tok, info = smol_tokenizer(SMOL_MERGES)
        c = smol_config(info["size"])
        gen = {"_from_model_config": True, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 2}
        return c, gen, tok, info, llama_weights(head_dim(c), entry["seed"])
    if fam == "qwen2":
        tok, info = qwen_tokenizer(QWEN_MERGES)
        vocab = -(-info["size"] // 128) * 128  # Qwen pads its embedding table to a multiple of 128
        c = qwen_config(vocab, info["eot"], info["im_end"])
        c["attention_bias"] = True  # only for the weights; Qwen2's config has no such field
        W = llama_weights(head_dim(c), entry["seed"])
        del c["attention_bias"]
        gen = qwen_generation(info)
        return c, gen, tok, info, W
    if fam in FAMILY_PARTS:
        c, gen, tok, info = FAMILY_PARTS[fam]()
        return c, gen, tok, info, llama_weights(head_dim(c), entry["seed"])
    if fam == "bert":
        tok, info = bert_tokenizer()
        c = bert_config(info["size"])
        return c, None, tok, info, bert_weights(c, entry["seed"])
    if fam == "bart":
        tok, info = bart_tokenizer(BART_MERGES)
        c = bart_config(info["size"])
        return c, bart_generation(), tok, info, bart_weights(c, entry["seed"])
    raise ValueError(fam)


def qwen_generation(info):
    return {
        "bos_token_id": info["eot"],
        "pad_token_id": info["eot"],
        "do_sample": True,
        "eos_token_id": [info["im_end"], info["eot"]],
        "repetition_penalty": 1.1,
        "temperature": 0.7,
        "top_p": 0.8,
        "top_k": 20,
        "transformers_version": "4.37.0",
    }


def bart_generation():
    return {
        "bos_token_id": 0,
        "decoder_start_token_id": 2,
        "early_stopping": True,
        "eos_token_id": 2,
        "forced_bos_token_id": 0,
        "forced_eos_token_id": 2,
        "length_penalty": 2.0,
        "max_length": 142,
        "min_length": 56,
        "no_repeat_ngram_size": 3,
        "num_beams": 4,
        "pad_token_id": 1,
    }


def build_graph(entry, c, W, graph, dtype):
    """The ModelProto of one file (e.g. graph "decoder_model_merged", dtype "q8")."""
    _, act, weights = DTYPES[dtype]
    fam = entry["family"]
    if fam == "gpt2":
        pid = entry["position_ids"]
        if graph == "decoder_model":
            return gpt2_graph(c, W, False, pid, weights, merged_dims=False)
        if graph == "decoder_with_past_model":
            return gpt2_graph(c, W, True, pid, weights)
        return merged(gpt2_graph(c, W, False, pid, weights), gpt2_graph(c, W, True, pid, weights), c["n_layer"])
    if fam in LLAMA_LIKE:
        return llama_graph(head_dim(c), W, act, weights, entry.get("logits_to_keep", False))
    if fam == "bert":
        return bert_graph(c, W, weights)
    if graph == "encoder_model":
        return bart_encoder_graph(c, W, weights)
    return merged(
        bart_decoder_graph(c, W, False, weights), bart_decoder_graph(c, W, True, weights), c["decoder_layers"]
    )


TOLERANCE = {"fp32": 1e-4, "q4": 1e-4, "fp16": 0.05, "q4f16": 0.05, "q8": 0.5, "int8": 0.5, "uint8": 0.5}


def check_data(entry, c, W, info):
    """PyTorch's numbers for check_hub_fixtures.cjs: the tokenizer's ids for SAMPLE, and per graph the
    logits of the sample's first tokens (last position) and greedy ids after them, with the weights
    that graph computes with."""
    import torch

    if entry["family"] == "bert":
        return bert_check_data(entry, c, W, info)
    bpe, split = info["bpe"], info["split"]
    # SentencePiece-style tokenizers know whether a piece opens the text (Metaspace's "first")
    encode = info.get("encode") or (lambda text, first=True: bpe.encode(text, split))
    ids = info.get("prefix", []) + encode(SAMPLE)
    if "wrap" in info:
        ids = [info["wrap"][0]] + ids + [info["wrap"][1]]
    prompt = ids[:8] if "wrap" not in info else ids
    fam = entry["family"]
    out = {"sample": SAMPLE, "sample_ids": ids, "prompt_ids": prompt, "variants": {}}
    if fam in CHAT_PROMPTS:
        # what the real template renders for CHAT (add_generation_prompt), and its ids, special tokens whole
        text = CHAT_PROMPTS[fam]
        specials = info["specials"]
        pieces = re.split("(" + "|".join(re.escape(t) for t in specials) + ")", text)
        chat_ids = []
        for i, piece in enumerate(pieces):
            chat_ids += [specials[piece]] if piece in specials else encode(piece, i == 0) if piece else []
        out.update({"chat": CHAT, "chat_prompt": text, "chat_ids": chat_ids})
    x = torch.tensor([prompt])
    for load in entry["load"]:
        dtype = load["dtype"]
        _, act, weights = DTYPES[dtype]
        kind = "q4" if weights == "q4" else "float"
        with torch.no_grad():
            if fam == "gpt2":
                E = effective(W, kind, act, lm_head_of="transformer.wte")
                pid = entry["position_ids"]

                def step(t, past, E=E, pid=pid):
                    n = (0 if past is None else past[0][0].shape[2]) + t.shape[1]
                    pos = torch.arange(n - t.shape[1], n)[None] if pid else None
                    return ref_gpt2(c, E, t, torch.ones(1, n, dtype=torch.long), pos, past)

            elif fam in LLAMA_LIKE:
                E = effective(W, kind, act, lm_head_of=None if "lm_head" in W else "model.embed_tokens")
                hc = head_dim(c)

                def step(t, past, E=E, hc=hc):
                    n = (0 if past is None else past[0][0].shape[2]) + t.shape[1]
                    pos = torch.arange(n - t.shape[1], n)[None]
                    return ref_llama(hc, E, t, torch.ones(1, n, dtype=torch.long), pos, past)

            else:
                E = effective(W, kind, act, lm_head_of="model.shared")
                enc = ref_bart_encoder(c, E, x, torch.ones_like(x))

                def step(t, past, E=E, enc=enc):
                    return ref_bart_decoder(c, E, t, torch.ones_like(x), enc, past)

            if fam == "bart":
                start = torch.tensor([[c["decoder_start_token_id"], c["forced_bos_token_id"]]])
                logits, _ = step(start, None)
                greedy = ref_greedy(step, start, 6)
            else:
                logits, _ = step(x, None)
                greedy = ref_greedy(step, x, 6)
        out["variants"][dtype] = {
            "last_logits": [round(float(v), 6) for v in logits[0, -1]],
            "greedy_ids": greedy,
            "tolerance": TOLERANCE[dtype],
        }
    return out


def bert_check_data(entry, c, W, info):
    """PyTorch's numbers for an encoder: the sample's ids ([CLS] ... [SEP]), the last layer at its last
    position per graph, and bert_score's BERTScore of BERTSCORE_PAIRS (the fp32 weights)."""
    import torch

    wp = info["wp"]
    ids = wp.encode(SAMPLE)
    x = torch.tensor([ids])
    with torch.no_grad():
        last = ref_bert(c, W, x, torch.ones_like(x))[0, -1]
    out = {"sample": SAMPLE, "sample_ids": ids, "variants": {}}
    for load in entry["load"]:
        out["variants"][load["dtype"]] = {
            "last_hidden": [round(float(v), 6) for v in last],
            "tolerance": TOLERANCE[load["dtype"]],
        }
    out["layer"] = c["num_hidden_layers"]
    out["bertscore"] = bertscore_reference(c, W, wp, info["cls"], info["sep"], BERTSCORE_PAIRS)
    return out


def readme(entry, files):
    rows = "\n".join(f"| {f} | {s} |" for f, s in files)
    return f"""# {OWNER}/{entry['name']}

Random weights in the layout of [{entry['imitates']}](https://huggingface.co/{entry['imitates']}), written by
`models/train/draftsmith_train/hub_fixtures.py` (tiny sizes; the real config fields, special tokens, chat template
and generation settings). It writes nonsense: it is here for the layout.

{entry['layout']}.

| file | bytes |
|---|---|
{rows}
"""


def write_fixture(root, entry):
    c, gen, tok, info, W = family_parts(entry)
    folder = os.path.join(root, OWNER, entry["name"])
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    files = {"config.json": c, **({"generation_config.json": gen} if gen is not None else {}), **tok}
    write_files(folder, files)
    os.makedirs(os.path.join(folder, "onnx"))
    graphs = {}
    for graph, dtypes in entry["graphs"].items():
        for dtype in dtypes:
            rel = f"onnx/{graph}{DTYPES[dtype][0]}.onnx"
            onnx.save(build_graph(entry, c, W, graph, dtype), os.path.join(folder, rel))
            graphs.setdefault(dtype, []).append(rel)
    listing = sorted(
        os.path.relpath(os.path.join(d, f), folder).replace(os.sep, "/") for d, _, fs in os.walk(folder) for f in fs
    )
    sizes = [(f, os.path.getsize(os.path.join(folder, f))) for f in listing]
    write_files(folder, {"README.md": readme(entry, sizes)})
    listing = sorted(listing + ["README.md"])
    mirror = {
        "imitates": entry["imitates"],
        "revision": None,
        "family": entry["family"],
        "model_type": c["model_type"],
        "layout": entry["layout"],
        "load": entry["load"],
        "instruct": "chat_template" in tok["tokenizer_config.json"],
        "files": [
            {"path": f, "size": os.path.getsize(os.path.join(folder, f)), "sha256": sha256(os.path.join(folder, f))}
            for f in listing
        ],
    }
    return mirror, check_data(entry, c, W, info)


def write_fixtures(root):
    os.makedirs(root, exist_ok=True)
    if os.path.isdir(os.path.join(root, OWNER)):
        shutil.rmtree(os.path.join(root, OWNER))
    mirrors, checks = {}, {}
    for entry in catalogue():
        t0 = time.time()
        key = f"{OWNER}/{entry['name']}"
        mirrors[key], checks[key] = write_fixture(root, entry)
        size = sum(f["size"] for f in mirrors[key]["files"])
        print(f"{key}: {len(mirrors[key]['files'])} files, {size / 1024:.0f} KiB ({time.time() - t0:.1f} s)")
    note = (
        "Written by models/train/draftsmith_train/hub_fixtures.py: tiny random-weight repositories in the layouts of "
        "the real ones named in 'imitates'. 'revision' is null: the file names follow those repositories and "
        "transformers.js's conventions as read offline, not a pinned commit. 'load' lists the options "
        "(dtype, model_file_name) with which transformers.js 4.3.1 loads each graph."
    )
    write_files(root, {"MIRRORS.json": {"note": note, "repos": mirrors}, "CHECKS.json": checks})
    total = sum(f["size"] for m in mirrors.values() for f in m["files"])
    print(f"{len(mirrors)} repositories, {total / 2**20:.2f} MiB in {root}/{OWNER}")


# ---- real sizes ---------------------------------------------------------------------------------------

REAL = {
    "smollm2-135m": {
        "name": "SmolLM2-135M-Instruct",
        "imitates": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "family": "llama",
        "shape": dict(hidden=576, layers=30, heads=9, kv=3, inter=1536),
        "vocab": 49152,
        "dtypes": ["q4", "int8", "fp32"],
        "seed": 121,
    },
    "smollm2-360m": {
        "name": "SmolLM2-360M-Instruct",
        "imitates": "HuggingFaceTB/SmolLM2-360M-Instruct",
        "family": "llama",
        "shape": dict(hidden=960, layers=32, heads=15, kv=5, inter=2560),
        "vocab": 49152,
        "dtypes": ["q4", "int8"],
        "seed": 122,
    },
    "qwen2.5-0.5b": {
        "name": "Qwen2.5-0.5B-Instruct",
        "imitates": "onnx-community/Qwen2.5-0.5B-Instruct",
        "family": "qwen2",
        "shape": dict(hidden=896, layers=24, heads=14, kv=2, inter=4864),
        "vocab": 151936,
        "tokens": 151665,
        "dtypes": ["q4", "int8"],
        "seed": 131,
    },
}


def write_real_size(root, models, dtypes=None):
    """Random weights with the real shapes; file names and tokenizers as the real repositories'."""
    os.makedirs(root, exist_ok=True)
    report = {}
    for key in models:
        spec = REAL[key]
        t0 = time.time()
        folder = os.path.join(root, OWNER, spec["name"])
        os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
        if spec["family"] == "llama":
            tok, info = smol_tokenizer(SMOL_MERGES, real_vocab=spec["vocab"])
            c = smol_config(spec["vocab"], **spec["shape"])
            gen = {"_from_model_config": True, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 2}
            W = llama_weights(head_dim(c), spec["seed"])
        else:
            tok, info = qwen_tokenizer(QWEN_MERGES, real_vocab=spec["tokens"])
            c = qwen_config(spec["vocab"], info["eot"], info["im_end"], **spec["shape"])
            c["attention_bias"] = True
            W = llama_weights(head_dim(c), spec["seed"])
            del c["attention_bias"]
            gen = qwen_generation(info)
        assert info["size"] == spec.get("tokens", spec["vocab"]), (info["size"], spec)
        write_files(folder, {"config.json": c, "generation_config.json": gen, **tok})
        t_weights = time.time() - t0
        files = {}
        for dtype in dtypes or spec["dtypes"]:
            t1 = time.time()
            _, act, weights = DTYPES[dtype]
            m = llama_graph(head_dim(c), W, act, weights)
            path = os.path.join(folder, "onnx", f"model{DTYPES[dtype][0]}.onnx")
            onnx.save(m, path)
            del m
            files[dtype] = {
                "file": os.path.relpath(path, folder),
                "bytes": os.path.getsize(path),
                "seconds": round(time.time() - t1, 1),
            }
            print(f"{spec['name']} {dtype}: {files[dtype]['bytes'] / 2**20:.1f} MiB in {files[dtype]['seconds']} s")
        report[f"{OWNER}/{spec['name']}"] = {
            "imitates": spec["imitates"],
            "config": {
                k: c[k]
                for k in (
                    "hidden_size",
                    "num_hidden_layers",
                    "num_attention_heads",
                    "num_key_value_heads",
                    "intermediate_size",
                    "vocab_size",
                )
            },
            "tokenizer_size": info["size"],
            "weights_and_tokenizer_seconds": round(t_weights, 1),
            "files": files,
            "seconds": round(time.time() - t0, 1),
        }
        del W
    old = {}
    path = os.path.join(root, "MIRRORS.json")
    if os.path.exists(path):
        old = json.load(open(path)).get("repos", {})
    old.update(report)
    write_files(
        root,
        {"MIRRORS.json": {"note": "random weights with the real shapes (hub_fixtures.py --real-size)", "repos": old}},
    )
    return report


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--out", help="the hub fixtures folder (default: the repository's test/fixtures/hub)")
    p.add_argument(
        "--real-size", metavar="DIR", help="write random-weight models with the real shapes into DIR instead"
    )
    p.add_argument(
        "--models", default="smollm2-135m,smollm2-360m,qwen2.5-0.5b", help="--real-size: which of " + ", ".join(REAL)
    )
    p.add_argument("--dtypes", help="--real-size: which files (default per model: q4, int8, and fp32 for the 135M)")
    a = p.parse_args(argv)
    t0 = time.time()
    if a.real_size:
        models = [m for m in a.models.split(",") if m]
        for m in models:
            if m not in REAL:
                raise SystemExit(f"unknown model {m}: one of {', '.join(REAL)}")
        write_real_size(a.real_size, models, a.dtypes.split(",") if a.dtypes else None)
    else:
        write_fixtures(a.out or os.path.join(here, "..", "..", "..", "test", "fixtures", "hub"))
    print(f"done in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
