"""PC-SAN recipe: topic words -> paragraph (see pcsan.py for the model, essay_data.py for the data).

  python3 -m draftsmith_train.essay prepare --data .data          # pairs (needs summarize prepare first)
  python3 -m draftsmith_train.essay prepare --corpus simple --data .data/simple   # ROCStories + TinyStories pairs
        (needs roundtrip prepare --corpus simple there first: its splits and tokenizer)
  python3 -m draftsmith_train.essay prepare --corpus everyday --data .data/everyday   # stories, Wikipedia and news
        (needs roundtrip prepare --corpus everyday there first: its paragraphs and the backbone's tokenizer)
  python3 -m draftsmith_train.essay words   --data .data          # fastText word vectors (apt: fasttext)
  python3 -m draftsmith_train.essay train   --data .data --init runs/pretrain.pt --minutes 60 --out runs/essay.pt
  python3 -m draftsmith_train.essay train   --data .data/everyday --backbone BACKBONE.pt ...
        (the encoder is the shared GPT-2 backbone: pcsan.py says how)
        [--layer-mix dynamic|static|last|none] [--context target|none|source] [--resume: go on from --out]

The source is the topic words joined into ONE input: each word's subwords, separated by the ","
piece; every subword also carries the id of its word in the fastText vocabulary (0: unknown).
Runs on a CUDA GPU when one is present (--device auto), otherwise on one CPU thread.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
from dataclasses import asdict

import numpy as np
import torch

from . import data as D
from .batching import token_batches
from . import tokenizer as T
from .essay_data import prepare_essay, prepare_everyday_essay, prepare_everyday_topics, prepare_simple_essay
from .causal_lm import load as load_gpt2
from .pcsan import EssayConfig, EssayGenerator, init_from_backbone
from .modules import label_smoothed_nll
from .training import add_resume_arg, log, nll_and_ppl, pad, pick_device, resume_checkpoint, save_checkpoint, train_loop

WORD = re.compile(r"[a-z]+")
WORD_VOCAB = 20000  # 20k x 64 floats: 5 MB inside encoder.onnx


# ---------------------------------------------------------------------------------------------
# Word vectors: fastText skip-gram on the pretraining corpus (the paper used GloVe)
# ---------------------------------------------------------------------------------------------
def cmd_words(args):
    exe = shutil.which("fasttext")
    if not exe:
        raise SystemExit("fasttext is not installed: apt-get install -y fasttext")
    words_txt = os.path.join(args.data, "essay_words.txt")
    with open(os.path.join(args.data, "corpus.txt"), encoding="utf-8") as f, open(words_txt, "w") as out:
        for line in f:
            out.write(" ".join(WORD.findall(line.lower())) + "\n")
    prefix = os.path.join(args.data, "wordvec")
    # Whole words only (-minn 0 -maxn 0: word2vec's skip-gram): only known words are looked up, and
    # character n-grams made it ~10x slower here.
    subprocess.run(
        [
            exe,
            "skipgram",
            "-input",
            words_txt,
            "-output",
            prefix,
            "-dim",
            str(args.word_dim),
            "-minCount",
            "5",
            "-minn",
            "0",
            "-maxn",
            "0",
            "-epoch",
            str(args.word_epochs),
            "-thread",
            str(args.word_threads),
            "-verbose",
            "1",
        ],
        check=True,
    )
    os.remove(prefix + ".bin")  # only the .vec text file is needed
    log(f"word vectors: {prefix}.vec")


def load_word_vectors(data_dir, limit=WORD_VOCAB):
    """(words, matrix [len(words)+1, dim]); row 0 is 'no known word'. fastText lists words by frequency."""
    words, rows = [], []
    with open(os.path.join(data_dir, "wordvec.vec"), encoding="utf-8") as f:
        n, dim = map(int, f.readline().split())
        for line in f:
            parts = line.rstrip().split(" ")
            if len(parts) != dim + 1 or not WORD.fullmatch(parts[0]):
                continue
            words.append(parts[0])
            rows.append([float(x) for x in parts[1:]])
            if len(words) >= limit:
                break
    matrix = np.zeros((len(words) + 1, dim), dtype=np.float32)
    matrix[1:] = np.array(rows, dtype=np.float32)
    return words, matrix


# ---------------------------------------------------------------------------------------------
# Pairs
# ---------------------------------------------------------------------------------------------
def separator_id(sp):
    return sp.piece_to_id(",") if sp.piece_to_id(",") != T.UNK else sp.piece_to_id("▁,")


def encode_topics(sp, words, word_index, sep):
    """Topic words joined into one input: ids and, per id, the word's fastText index (0 for the separator)."""
    ids, wids = [], []
    for i, w in enumerate(words):
        if i:
            ids.append(sep)
            wids.append(0)
        pieces = sp.encode(D.normalize(w))
        ids += pieces
        wids += [word_index.get(w.lower(), 0)] * len(pieces)
    return ids, wids


def load_pairs(path, sp, word_index, sep, max_tgt):
    out = []
    for line in open(path):
        r = json.loads(line)
        ids, wids = encode_topics(sp, r["topics"], word_index, sep)
        tgt = sp.encode(r["text"])[: max_tgt - 2]
        out.append((ids, wids, [T.BOS] + tgt + [T.EOS], r))
    return out


def load_essay_model(path, **overrides):
    ck = torch.load(path, map_location="cpu")
    # Checkpoints from before the copy option had none.
    model = EssayGenerator(EssayConfig(**{"copy": False, **ck["config"], **overrides}))
    model.load_state_dict(ck["state"])
    return model, ck.get("meta", {})


def init_from_pretrained(model, path):
    """The denoising encoder-decoder of summarize.py pretrain (same names, except that the decoder's
    self-attention now sits inside ContextualSelfAttention), or an earlier essay run to go on from
    (tensors it lacks, such as the copy gate, start fresh)."""
    ck = torch.load(path, map_location="cpu")
    state, stage = ck["state"], ck.get("meta", {}).get("stage")
    mapped = {}
    for k, v in state.items():
        k2 = k if stage == "essay" else re.sub(r"^(decoder\.\d+\.self_attn)\.", r"\1.attn.", k)
        mapped[k2] = v
    own = model.state_dict()
    usable = {k: v for k, v in mapped.items() if k in own and own[k].shape == v.shape}
    model.load_state_dict(usable, strict=False)
    fresh = sorted(set(k.split(".")[0] for k in own if k not in usable))
    log(f"initialised {len(usable)} tensors from {path}; fresh: {fresh}")


def shipped_words(folder):
    """A shipped essay folder's model (rebuilt from its ONNX graphs), word list and word vectors."""
    from .weights_from_onnx import load_shipped

    shipped = load_shipped(folder)
    words = json.load(open(os.path.join(folder, "words.json")))
    return shipped, words, shipped.word_vectors.weight.detach().numpy()


def model_config(args, sp, matrix, saved, backbone):
    """The essay config; with a backbone (--backbone, a causal_lm.GPT2) or `saved`, a resumed backbone
    run's config, the encoder's shape is the backbone's."""
    common = dict(
        vocab_size=sp.get_piece_size(),
        word_vocab_size=matrix.shape[0],
        word_dim=matrix.shape[1],
        layer_mix=args.layer_mix,
        context=args.context,
        copy=not args.no_copy,
    )  # positions as pretrained (256)
    bb = asdict(backbone.config) if backbone is not None else saved.get("backbone")
    if not bb:
        return EssayConfig(**common)
    if bb["vocab_size"] != common["vocab_size"]:
        raise SystemExit(f"{args.data}/spm.model has {common['vocab_size']} pieces, the backbone {bb['vocab_size']}")
    return EssayConfig(
        **common,
        encoder="backbone",
        backbone=bb,
        d_model=bb["n_embd"],
        d_ff=4 * bb["n_embd"],
        encoder_layers=bb["n_layer"],
        decoder_layers=args.decoder_layers,
        max_source_positions=bb["n_positions"],
        max_target_positions=min(256, bb["n_positions"]),
    )


def cmd_train(args):
    device = pick_device(args.device)
    sp = T.load(os.path.join(args.data, "spm.model"))
    shipped, resume = None, resume_checkpoint(args)
    resumed = torch.load(resume, map_location="cpu") if resume else {}
    resumed_words = resumed.get("words")
    if resumed_words:
        # a resumed run keeps its checkpoint's word list (its vectors come back with every other weight)
        words = resumed_words
        matrix = np.zeros((len(words) + 1, args.word_dim), dtype=np.float32)
    elif args.init_shipped:
        # a shipped folder's weights and its own word list and vectors
        shipped, words, matrix = shipped_words(args.init_shipped)
    else:
        words, matrix = load_word_vectors(args.data)
    word_index = {w: i + 1 for i, w in enumerate(words)}
    sep = separator_id(sp)
    backbone = load_gpt2(args.backbone)[0] if args.backbone and not resume else None
    # a shipped folder keeps its own shape (its encoder may be the backbone's), whatever the size flags say
    cfg = shipped.c if shipped is not None else model_config(args, sp, matrix, resumed.get("config", {}), backbone)
    model = EssayGenerator(cfg)
    # -None loads the encoder too but never reads it: its memory is word vectors only. A resumed run
    # (--resume) takes every weight from its checkpoint (train_loop), so it needs no --init file.
    if shipped is not None:
        model.load_state_dict(shipped.state_dict())
        log(f"initialised every weight from the shipped folder {args.init_shipped}")
    elif backbone is not None and args.backbone_fresh:
        log("the backbone's shape, fresh weights (--backbone-fresh): what pretraining gives, by difference")
    elif backbone is not None:
        log(f"initialised {init_from_backbone(model, backbone)} tensors from the backbone {args.backbone}")
    elif args.init and not resume:
        init_from_pretrained(model, args.init)
    with torch.no_grad():
        model.word_vectors.weight.copy_(torch.from_numpy(matrix))
    model.to(device)
    train = load_pairs(os.path.join(args.data, "essay.train.jsonl"), sp, word_index, sep, args.max_tgt)
    val = load_pairs(os.path.join(args.data, "essay.val.jsonl"), sp, word_index, sep, args.max_tgt)[:300]
    log(
        f"essay: {sum(p.numel() for p in model.parameters() if p.requires_grad) / 1e6:.2f}M trainable params, "
        f"{len(train)} pairs, layer_mix={cfg.layer_mix}, context={cfg.context}, copy={cfg.copy}"
    )
    rng = random.Random(D.SEED)

    def batches():
        return token_batches(train, lambda x: len(x[2]), args.batch_tokens, rng, 10)

    def forward(b):
        src = pad([x[0] for x in b]).to(device)
        wid = pad([x[1] for x in b], 0).to(device)
        tgt = pad([x[2] for x in b]).to(device)
        logp = model(src, (src != T.PAD).long(), wid, tgt[:, :-1])
        loss, nll = label_smoothed_nll(logp, tgt[:, 1:], args.label_smoothing, T.PAD)
        return loss, nll, int((tgt != T.PAD).sum())

    def validate():
        return nll_and_ppl(np.mean([forward(val[i : i + 16])[1].item() for i in range(0, len(val), 16)]))

    # Eq. 2's few mixing scalars get a larger step: at the shared rate they stay near uniform for
    # the whole of a short (CPU) run, and the layer-mix ablations would then compare nothing.
    mix = [p for n, p in model.named_parameters() if n.startswith("layer_mix.")]
    rest = [p for n, p in model.named_parameters() if not n.startswith("layer_mix.") and p.requires_grad]
    groups = [{"params": rest}, {"params": mix, "lr_scale": args.mix_lr_scale, "weight_decay": 0.0}]

    def save(path, meta):
        save_checkpoint(path, model, meta, config=cfg.to_dict(), words=words)

    train_loop(
        model,
        batches(),
        args,
        device,
        lambda b: forward(b)[::2],
        validate,
        groups,
        meta={"stage": "essay", "init": None if args.backbone_fresh else args.backbone or args.init},
        save=save,
        keep_best=True,
    )
    log(f"layer weights {model.layer_mix.weights().detach().cpu().numpy().round(2).tolist()}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["prepare", "words", "train"])
    p.add_argument("--data", default=".data")
    p.add_argument(
        "--corpus",
        choices=["mixed", "simple", "everyday", "everyday-topics"],
        default="mixed",
        help=(
            "prepare: news/Debian/wiki/fairy-tale paragraphs (mixed), ROCStories + TinyStories (simple), or "
            "the everyday Round-Trip corpus's stories, Wikipedia and news (everyday); "
            "everyday-topics: a test split only, CommonGen's everyday concept sets"
        ),
    )
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default="runs/essay.pt")
    p.add_argument("--init")
    p.add_argument(
        "--init-shipped", help="train: go on from a shipped model folder (its weights, word list and vectors)"
    )
    p.add_argument("--backbone", help="train: the encoder is this backbone checkpoint (backbone.py train)")
    p.add_argument("--backbone-fresh", action="store_true", help="train: --backbone's shape without its weights")
    p.add_argument("--decoder-layers", type=int, default=3, help="train with --backbone: the decoder's depth")
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--batch-tokens", type=int, default=6000)
    p.add_argument("--max-tgt", type=int, default=192)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--layer-mix", choices=["dynamic", "static", "last", "none"], default="dynamic")
    p.add_argument("--context", choices=["target", "none", "source"], default="target")
    p.add_argument(
        "--mix-lr-scale", type=float, default=50.0, help="learning-rate multiple for the layer-mix weights (Eq. 2)"
    )
    p.add_argument("--no-copy", action="store_true", help="the paper's decoder without the pointer over topic subwords")
    p.add_argument("--word-dim", type=int, default=64)
    p.add_argument("--word-epochs", type=int, default=3)
    p.add_argument("--word-threads", type=int, default=1)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--val-every", type=int, default=250)
    add_resume_arg(p)
    args = p.parse_args()
    if args.cmd == "prepare":
        {
            "simple": prepare_simple_essay,
            "everyday": prepare_everyday_essay,
            "everyday-topics": prepare_everyday_topics,
        }.get(args.corpus, prepare_essay)(args.data)
    else:
        {"words": cmd_words, "train": cmd_train}[args.cmd](args)


if __name__ == "__main__":
    main()
