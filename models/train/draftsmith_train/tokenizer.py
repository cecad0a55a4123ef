"""SentencePiece unigram tokenizer, written out as a tokenizer.json that @huggingface/transformers loads.

Special ids (shared by every Draftsmith model): 0 <pad>, 1 <unk>, 2 <s>, 3 </s>, 4 <mask>.
Whitespace is collapsed before encoding on both sides (data.normalize / text/normalize.ts), so the
Metaspace handling here and in the tokenizer.json agree (measured: runs of spaces differ otherwise, as
sentencepiece collapses them).
"""
import json
import os

import sentencepiece as spm

PAD, UNK, BOS, EOS, MASK = 0, 1, 2, 3, 4


def train(corpus, out_prefix, vocab_size=8000):
    spm.SentencePieceTrainer.train(
        input=corpus,
        model_prefix=out_prefix,
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=0.9995,
        input_sentence_size=400000,
        shuffle_input_sentence=True,
        pad_id=PAD,
        unk_id=UNK,
        bos_id=BOS,
        eos_id=EOS,
        user_defined_symbols=["<mask>"],
        normalization_rule_name="identity",
        remove_extra_whitespaces=True,
        max_sentence_length=8192,
        num_threads=2,
        minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_file=out_prefix + ".model")


def load(model_file):
    return spm.SentencePieceProcessor(model_file=model_file)


def write_tokenizer_json(sp, out_dir):
    vocab = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    special = [(PAD, "<pad>"), (UNK, "<unk>"), (BOS, "<s>"), (EOS, "</s>"), (MASK, "<mask>")]
    for i, tok in special:
        vocab[i] = [tok, 0.0]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, t in special
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
                {"type": "Strip", "strip_left": True, "strip_right": True},
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            ],
        },
        "pre_tokenizer": None,
        "model": {"type": "Unigram", "unk_id": UNK, "vocab": vocab, "byte_fallback": False},
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    }
    os.makedirs(out_dir, exist_ok=True)
    json.dump(tok, open(os.path.join(out_dir, "tokenizer.json"), "w"), ensure_ascii=False)
    json.dump(
        {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "model_max_length": 512,
            "pad_token": "<pad>",
            "unk_token": "<unk>",
            "bos_token": "<s>",
            "eos_token": "</s>",
            "mask_token": "<mask>",
            "clean_up_tokenization_spaces": False,
        },
        open(os.path.join(out_dir, "tokenizer_config.json"), "w"),
    )
