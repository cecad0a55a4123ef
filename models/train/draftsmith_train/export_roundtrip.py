"""Export a Round-Trip checkpoint to the model folder the extension loads (models/roundtrip), for
step-wise greedy decoding from TypeScript. L = layers, H = hidden size, V = vocabulary; batch is 1.

standard
  encoder.onnx       input_ids [1,T] (the paragraph's tokens, all sentences joined, REVERSED)
                     -> h [L,1,H], c [L,1,H]
  word_step.onnx     input_ids [1,1], h [L,1,H], c [L,1,H] -> log_probs [1,V], output [1,H], h_out, c_out
hier, hier-attn
  encoder.onnx       input_ids [S,T] (one row per sentence, the sentences in REVERSED order, each row's
                     tokens REVERSED, right-padded with <pad>=0), lengths [S] (int64, tokens per row)
                     -> memory [1,S,H] (sentence-level encoder outputs), h [L,1,H], c [L,1,H],
                        start [1,H] (the first sentence step's input)
  sentence_step.onnx prev [1,H], h [L,1,H], c [L,1,H] (+ memory [1,S,H] with attention)
                     -> h_out [L,1,H], c_out [L,1,H], end_logit [1] (+ attention [1,S])
  word_step.onnx     as for standard; the word decoder starts from the sentence step's h_out, c_out
Greedy decoding (RoundTrip.greedy): see model.json "decoding".
  python3 -m draftsmith_train.export_roundtrip runs/roundtrip-hier-attn.pt ../roundtrip .data [fixture] [int8|float32]

Weight matrices (embedding, LSTM gates, attention, output) are stored as int8 with a float32 scale per
row by default (weight_storage.py: ~4x smaller, the same float32 graph at run time); the parity fixture
is computed from the rounded weights. WEIGHTS=float32 (or the last argument) keeps them as they are.

The PyTorch parity fixture (greedy ids and first-step values on one short test paragraph) goes where
the TypeScript parity test reads it: test/fixtures/roundtrip-parity.json for the shipped folder
(models/roundtrip), else parity.json inside the exported folder (the test models under
test/fixtures/roundtrip-models/, and the variants exported for `draftsmith eval roundtrip`), unless a
fixture path is given. parity.json is not one of model.json's files, so the engine ignores it.
"""
import json
import os
import shutil

import torch

from . import tokenizer as T
from .export_common import OPSET, sha256
from .weight_storage import quantize_, store_int8_files
from .roundtrip_model import load_model, pad, reverse_tokens
from .roundtrip_data import MAX_SENTENCES, MAX_TOKENS, load as load_rows


class StandardEncoder(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids):
        _, (h, c) = self.m.word_encoder.lstm(self.m.embedding(input_ids))
        return h, c


class HierEncoder(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, lengths):
        vecs = self.m.encode_sentences(input_ids, lengths)
        memory, (h, c) = self.m.sentence_encoder(vecs.unsqueeze(0))
        # '+ 0 * h[-1]': a parameter returned alone is exported as a constant whose output name is lost
        return memory, h, c, self.m.sentence_decoder.start.unsqueeze(0) + 0 * h[-1]


class SentenceStep(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, prev, h, c, memory=None):
        d = self.m.sentence_decoder
        attn = None
        if d.attention is not None:
            a = d.attention
            v = a.u(torch.tanh(a.w1(h[-1]).unsqueeze(1) + a.w2(memory))).squeeze(-1)
            attn = torch.softmax(v, -1)
            prev = torch.cat([prev, (attn.unsqueeze(-1) * memory).sum(1)], -1)
        out, (h2, c2) = d.lstm(prev.unsqueeze(0), (h, c))
        end = d.end(out[0]).squeeze(-1)
        return (h2, c2, end, attn) if attn is not None else (h2, c2, end)


class WordStep(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, h, c):
        logp, out, (h2, c2) = self.m.word_decoder(input_ids, (h, c))
        return logp[:, -1], out[:, -1], h2, c2


def encoder_inputs(paragraph):
    rows = [reverse_tokens(s) for s in reversed(paragraph)]
    return pad(rows), torch.tensor([len(r) for r in rows])


REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))


def default_fixture(out_dir):
    """The shipped folder's fixture lives with the tests; any other folder keeps its own."""
    if os.path.abspath(out_dir) == os.path.join(REPO, "models", "roundtrip"):
        return os.path.join(REPO, "test", "fixtures", "roundtrip-parity.json")
    return os.path.join(out_dir, "parity.json")


def corpus_tag(data_dir):
    """The corpus in the model's name (roundtrip prepare --corpus): "everyday-" (stories and news),
    "simple-" (stories), "" for the mixed one."""
    path = os.path.join(data_dir, "roundtrip.counts.json")
    counts = json.load(open(path)) if os.path.exists(path) else {}
    return "everyday-" if "roc" in counts and "news" in counts else "simple-" if "roc" in counts else ""


def export(ckpt, out_dir, data_dir, fixture=None, weights="int8"):
    model, meta = load_model(ckpt)
    model.eval()
    records = quantize_(model) if weights == "int8" else {}
    c = model.c
    L, H = c.layers, c.hidden
    os.makedirs(out_dir, exist_ok=True)
    sp = T.load(os.path.join(data_dir, "spm.model"))
    rows = load_rows(os.path.join(data_dir, "roundtrip.test.jsonl"), sp, 40)
    paragraph, record = min(
        rows[:40], key=lambda r: abs(len(r[0]) - 3) * 100 + sum(map(len, r[0]))
    )  # a short 3-sentence one
    files = ["encoder.onnx", "word_step.onnx"]
    state_axes = {1: "batch"}
    word = WordStep(model).eval()
    h1 = torch.zeros(L, 1, H)
    with torch.no_grad():
        torch.onnx.export(
            word,
            (torch.tensor([[T.BOS]]), h1, h1),
            os.path.join(out_dir, "word_step.onnx"),
            opset_version=OPSET,
            input_names=["input_ids", "h", "c"],
            output_names=["log_probs", "output", "h_out", "c_out"],
            dynamic_axes={
                "input_ids": {0: "batch"},
                "h": state_axes,
                "c": state_axes,
                "log_probs": {0: "batch"},
                "output": {0: "batch"},
                "h_out": state_axes,
                "c_out": state_axes,
            },
        )
        ref = {}
        if c.model == "standard":
            enc = StandardEncoder(model).eval()
            ids = torch.tensor([reverse_tokens([t for s in paragraph for t in s])])
            torch.onnx.export(
                enc,
                (ids,),
                os.path.join(out_dir, "encoder.onnx"),
                opset_version=OPSET,
                input_names=["input_ids"],
                output_names=["h", "c"],
                dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "h": state_axes, "c": state_axes},
            )
            h, cc = enc(ids)
            ref["encoder_input_ids"] = ids[0].tolist()
        else:
            files.insert(1, "sentence_step.onnx")
            enc = HierEncoder(model).eval()
            ids, lengths = encoder_inputs(paragraph)
            torch.onnx.export(
                enc,
                (ids, lengths),
                os.path.join(out_dir, "encoder.onnx"),
                opset_version=OPSET,
                input_names=["input_ids", "lengths"],
                output_names=["memory", "h", "c", "start"],
                dynamic_axes={
                    "input_ids": {0: "sentences", 1: "tokens"},
                    "lengths": {0: "sentences"},
                    "memory": {1: "sentences"},
                },
            )
            memory, h, cc, start = enc(ids, lengths)
            step = SentenceStep(model).eval()
            attn = c.model == "hier-attn"
            args = (start, h, cc) + ((memory,) if attn else ())
            torch.onnx.export(
                step,
                args,
                os.path.join(out_dir, "sentence_step.onnx"),
                opset_version=OPSET,
                input_names=["prev", "h", "c"] + (["memory"] if attn else []),
                output_names=["h_out", "c_out", "end_logit"] + (["attention"] if attn else []),
                dynamic_axes={"memory": {1: "sentences"}, "attention": {1: "sentences"}} if attn else None,
            )
            ref["encoder_input_ids"] = ids.tolist()
            ref["encoder_lengths"] = lengths.tolist()
            ref["memory_first"] = [round(float(x), 6) for x in memory[0, 0, :8]]
            first = step(*args)
            ref["first_end_logit"] = round(float(first[2][0]), 6)
            h, cc = first[0], first[1]
        ref["h_first"] = [round(float(x), 6) for x in h[-1, 0, :8]]
        lp = word(torch.tensor([[T.BOS]]), h, cc)[0][0]
        ref["first_log_probs_top"] = torch.topk(lp, 5).indices.tolist()
        ref["first_log_probs_values"] = [round(float(x), 5) for x in torch.topk(lp, 5).values]
        greedy, attns = model.greedy(paragraph, torch.device("cpu"))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(data_dir, "tokenizer", name), os.path.join(out_dir, name))
    store_int8_files(out_dir, list(files), records)
    files += ["tokenizer.json", "tokenizer_config.json"]
    hier = c.model != "standard"
    manifest = {
        "schemaVersion": 1,
        "system": "roundtrip",
        "name": f"roundtrip-{corpus_tag(data_dir)}{c.model}-{c.layers}x{c.hidden}",
        "description": {
            "standard": "LSTM autoencoder over the whole paragraph as one sequence (Li et al. 2015, Sec. 3.1)",
            "hier": "hierarchical LSTM paragraph autoencoder (Li et al. 2015, Sec. 3.2)",
            "hier-attn": (
                "hierarchical LSTM paragraph autoencoder with attention over the input sentences "
                "(Li et al. 2015, Sec. 3.3, Eqs. 10-15)"
            ),
        }[c.model],
        "architecture": {
            "type": f"roundtrip-{c.model}",
            "vocabSize": c.vocab_size,
            "embed": c.embed,
            "hidden": c.hidden,
            "layers": c.layers,
            "attention": c.model == "hier-attn",
            # what training read (roundtrip_data): longer paragraphs are cut to their first sentences
            "maxSentences": MAX_SENTENCES,
            "maxSentenceTokens": MAX_TOKENS,
            "state": {"h": [c.layers, 1, c.hidden], "c": [c.layers, 1, c.hidden]},
            "inputs": (
                "reversed: encoder rows are the sentences last first, each row's tokens last first, "
                "right-padded with <pad>"
                if hier
                else "reversed: the whole paragraph's tokens as one sequence, last token first"
            ),
        },
        "files": {
            "encoder": "encoder.onnx",
            "wordStep": "word_step.onnx",
            "tokenizer": "tokenizer.json",
            "tokenizerConfig": "tokenizer_config.json",
            **({"sentenceStep": "sentence_step.onnx"} if hier else {}),
        },
        "sha256": {f: sha256(os.path.join(out_dir, f)) for f in files},
        "specialTokens": {"pad": T.PAD, "unk": T.UNK, "bos": T.BOS, "eos": T.EOS, "mask": T.MASK},
        "maxInputTokens": MAX_SENTENCES * MAX_TOKENS,
        "decoding": {
            "strategy": "greedy",
            "maxLengthRatio": 1.5,
            "rule": "at most ceil(1.5 x input tokens) tokens in all; "
            + (
                "at most ceil(1.5 x input sentences) sentence steps; the paragraph ends when end_logit > 0 or "
                "the token budget is spent; each sentence starts the word step from the sentence step's h_out, "
                "c_out with <s>, and ends at </s> or after min(ceil(1.5 x the longest input sentence), tokens "
                "left) words; the next sentence step's prev is the word step's output at the step that chose "
                "</s> (or the last step run)"
                if hier
                else "the word step starts from the encoder's h, c with <s> and ends at </s>"
            ),
        },
        "training": {k: v for k, v in meta.items() if k in ("model", "params", "steps", "tokens", "seconds", "val")},
        "weights": {"storage": weights},
    }
    json.dump(manifest, open(os.path.join(out_dir, "model.json"), "w"), indent=2)
    fixture = fixture or default_fixture(out_dir)
    json.dump(
        {
            "model": c.model,
            "sentences": record["sentences"],
            "sentence_ids": paragraph,
            **ref,
            "greedy_ids": greedy,
            "greedy_text": [sp.decode(s) for s in greedy],
            "attention": [[round(x, 6) for x in a] for a in attns] if attns else None,
        },
        open(fixture, "w"),
        indent=1,
    )
    print("exported", out_dir, {f: os.path.getsize(os.path.join(out_dir, f)) for f in files}, "fixture", fixture)


if __name__ == "__main__":
    import sys

    a = sys.argv[1:] + [None] * (5 - len(sys.argv[1:]))
    export(a[0], a[1], a[2], a[3], a[4] or os.environ.get("WEIGHTS", "int8"))
