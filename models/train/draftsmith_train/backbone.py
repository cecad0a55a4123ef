"""The shared backbone: one decoder-only language model pretrained on all the narrative text we have
(the young readers' books, the simple stories, the TinyStories sample), for the systems to start from.

  python3 -m draftsmith_train.backbone prepare --out ../../.data/backbone
  python3 -m draftsmith_train.launch --nproc 2 -m draftsmith_train.backbone train \
      --data ../../.data/backbone --out ../../.data/backbone/runs/backbone.pt --minutes 600 --resume
  python3 -m draftsmith_train.backbone eval --data ../../.data/backbone --ckpt ../../.data/backbone/runs/backbone.pt

prepare: the documents of each source (a book; a TinyStories story; a pseudo-story of simple_stories
sentences) are split into train / valid / test by document with a fixed seed, so no held-out book or
story is seen in training. Paragraphs are deduplicated by a normalised hash (test first, then valid,
then train: a paragraph of a held-out document is dropped from the parts after it), and the leakage
check counts the train paragraphs whose hash is in valid or test (it must be 0; prepare fails
otherwise). Paragraphs of fewer than --min-words words ("Yes," said Tom.) are exempt from both: they
repeat everywhere and carry no content to leak. A SentencePiece unigram tokenizer (tokenizer.py, 8k)
is trained on a sample of the train text and written as tokenizer.json too; every split of every
source is encoded to a uint16 array {split}.{source}.npy, each document as <s> paragraphs </s>.
prepare_report.json keeps the counts.

train: the GPT-2 of causal_lm.py (pre-LayerNorm blocks, learned positions, tied embeddings) on random
windows of --window + 1 tokens drawn from the train arrays, each source's share weighted by --mix
(tokens x weight), by the shared loop (training.train_loop: DDP over the processes launch.py starts,
--resume, --minutes/--steps over the whole run, checkpoints with train_state). Batch i of the stream
is drawn from a generator seeded with (--seed, i), so the stream is the same on every rank and a
resumed run skips the batches already trained on cheaply. Checkpoints are written atomically (a file
beside, then renamed), so a run killed at any moment resumes from its last validation.

eval: perplexity per source on the valid and test arrays (the held-out books and the held-out stories
apart), sliding windows of the model's context that score each token once, with at least
context - --stride tokens of context for all but the first window (--stride: half the context unless
given); word perplexity counts the pieces that start a word.
"""
import argparse
import glob
import hashlib
import json
import math
import os
import random
import re
import time
from dataclasses import asdict

import numpy as np
import torch
import torch.nn.functional as F

from . import data as D
from . import tokenizer as T
from .causal_lm import GPT2Config, make, sample
from .training import (
    add_resume_arg,
    load_checkpoint,
    log,
    nll_and_ppl,
    pick_device,
    resume_checkpoint,
    train_loop,
)

SOURCES = ("books", "simple", "tiny")
SPLITS = ("train", "valid", "test")
MIN_WORDS = 8


# ---------------------------------------------------------------------------------------------
# Documents of each source: (doc id, [paragraphs])
# ---------------------------------------------------------------------------------------------
def book_docs(shared):
    """A book per file; its paragraphs are the blank-line-separated blocks (lines joined)."""
    docs = []
    for path in sorted(glob.glob(os.path.join(shared, "data/gutenberg_young_readers/books/*.txt"))):
        text = open(path, encoding="utf-8", errors="replace").read()
        paras = [D.normalize(p) for p in re.split(r"\n\s*\n", text)]
        docs.append((os.path.basename(path), [p for p in paras if p]))
    return docs


def simple_docs(shared, max_lines=15):
    """simple_stories has lost its story boundaries (one sentence a line). A pseudo-story starts where a
    sentence opens with a rare capitalised word (a name: "Ziggy the zebra was ...") that the current
    story has not mentioned; the frequent openers (He, One, The ...) never start one; at most max_lines."""
    path = os.path.join(shared, "data/simple_stories/simple_stories_en_sentences.txt")
    lines = [D.normalize(l) for l in open(path, encoding="utf-8")]
    lines = [l for l in lines if l]
    first = [l.split()[0].strip(",.!?;:'\"") for l in lines]
    counts = {}
    for w in first:
        counts[w] = counts.get(w, 0) + 1
    common = max(20, len(lines) // 500)  # an opener this frequent is a pronoun or a stock phrase
    docs, cur, seen = [], [], set()
    for line, w in zip(lines, first):
        new = w[:1].isupper() and counts[w] < common and w not in seen
        if cur and (new or len(cur) >= max_lines):
            docs.append((f"simple-{len(docs)}", cur))
            cur, seen = [], set()
        cur.append(line)
        seen.update(t.strip(",.!?;:'\"") for t in line.split())
    if cur:
        docs.append((f"simple-{len(docs)}", cur))
    return docs


def tiny_docs(shared):
    """TinyStories sample: blank lines separate paragraphs; a story starts on a line that follows a
    non-blank line (the sources dropped the end marker, and its line break is all that is left)."""
    lines = open(os.path.join(shared, "data/tinystories/tinystories_sample.txt"), encoding="utf-8").read().split("\n")
    docs, cur, prev_blank = [], [], True
    for line in lines:
        text = D.normalize(line)
        if not text:
            prev_blank = True
            continue
        if cur and not prev_blank:
            docs.append((f"tiny-{len(docs)}", cur))
            cur = []
        cur.append(text)
        prev_blank = False
    if cur:
        docs.append((f"tiny-{len(docs)}", cur))
    return docs


def split_docs(docs, frac, seed):
    """train / valid / test by document: data.split's seeded shuffle, at least one document held out each."""
    n = max(1, round(len(docs) * frac)) if len(docs) >= 3 else 0
    train, valid, test = D.split(docs, n, n, seed)
    return {"train": train, "valid": valid, "test": test}


def para_key(p):
    """The normalised hash: lower case, letters and digits only."""
    return hashlib.blake2b(re.sub(r"[^a-z0-9]+", " ", p.lower()).strip().encode(), digest_size=8).digest()


def dedup(splits, min_words=MIN_WORDS):
    """splits: {source: {split: [(id, [paragraphs])]}}. Drops repeated paragraphs (of min_words or more)
    in the order test, valid, train across all sources: within a part the first one stays, and a part
    loses what an earlier part holds. Returns (the deduplicated splits, counts per source and part)."""
    seen, out, counts = set(), {s: {} for s in splits}, {s: {} for s in splits}
    for part in ("test", "valid", "train"):
        held = set(seen)  # the earlier (held-out) parts' paragraphs
        for src in splits:
            c = {"docs": 0, "paragraphs": 0, "duplicates": 0, "held_out_dropped": 0}
            docs = []
            for doc_id, paras in splits[src][part]:
                kept = []
                for p in paras:
                    if len(p.split()) >= min_words:
                        k = para_key(p)
                        if k in held:
                            c["held_out_dropped"] += 1
                            continue
                        if k in seen:
                            c["duplicates"] += 1
                            continue
                        seen.add(k)
                    kept.append(p)
                if kept:
                    docs.append((doc_id, kept))
                    c["docs"] += 1
                    c["paragraphs"] += len(kept)
            out[src][part], counts[src][part] = docs, c
    return out, counts


def leakage(splits, min_words=MIN_WORDS):
    """Counts of paragraphs (min_words or more) shared between parts; all must be 0 after dedup."""
    keys = {part: set() for part in SPLITS}
    for src in splits:
        for part in SPLITS:
            for _, paras in splits[src][part]:
                keys[part].update(para_key(p) for p in paras if len(p.split()) >= min_words)
    return {
        "train&valid": len(keys["train"] & keys["valid"]),
        "train&test": len(keys["train"] & keys["test"]),
        "valid&test": len(keys["valid"] & keys["test"]),
    }


def encode_docs(sp, docs):
    """<s> paragraphs </s> per document, one uint16 array."""
    parts = []
    for _, paras in docs:
        ids = sp.encode(paras)
        parts.append(np.array([T.BOS] + [i for p in ids for i in p] + [T.EOS], dtype=np.uint16))
    return np.concatenate(parts) if parts else np.zeros(0, np.uint16)


def cmd_prepare(args):
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    docs = {
        "books": book_docs(args.shared),
        "simple": simple_docs(args.shared),
        "tiny": tiny_docs(args.shared),
    }
    splits = {s: split_docs(d, args.book_frac if s == "books" else args.story_frac, args.seed) for s, d in docs.items()}
    for s in SOURCES:
        log(f"{s}: {len(docs[s])} documents -> " + ", ".join(f"{p} {len(splits[s][p])}" for p in SPLITS))
    splits, counts = dedup(splits, args.min_words)
    leaks = leakage(splits, args.min_words)
    log(f"dedup: {json.dumps(counts)}")
    log(f"leakage check (paragraphs of {args.min_words}+ words shared between parts): {leaks}")
    if any(leaks.values()):
        raise SystemExit("leakage check failed")
    # The tokenizer: a sample of the train paragraphs (all the stories', the books' up to --spm-paragraphs).
    rng = random.Random(args.seed)
    book_paras = [p for _, ps in splits["books"]["train"] for p in ps]
    story_paras = [p for s in ("simple", "tiny") for _, ps in splits[s]["train"] for p in ps]
    sample = story_paras + rng.sample(book_paras, min(len(book_paras), max(0, args.spm_paragraphs - len(story_paras))))
    rng.shuffle(sample)
    corpus = os.path.join(args.out, "spm_sample.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.writelines(p + "\n" for p in sample)
    log(f"tokenizer: {len(sample)} paragraphs, vocabulary {args.vocab}")
    sp = T.train(corpus, os.path.join(args.out, "spm"), args.vocab)
    T.write_tokenizer_json(sp, args.out)
    os.remove(corpus)
    tokens = {s: {} for s in SOURCES}
    for s in SOURCES:
        for part in SPLITS:
            arr = encode_docs(sp, splits[s][part])
            np.save(os.path.join(args.out, f"{part}.{s}.npy"), arr)
            tokens[s][part] = int(arr.size)
        log(f"{s} tokens: " + ", ".join(f"{p} {tokens[s][p]:,}" for p in SPLITS))
    totals = {p: sum(tokens[s][p] for s in SOURCES) for p in SPLITS}
    log(f"all tokens: " + ", ".join(f"{p} {totals[p]:,}" for p in SPLITS))
    held = {s: {p: [d for d, _ in splits[s][p]] for p in ("valid", "test")} for s in SOURCES}
    report = {
        "shared": os.path.abspath(args.shared),
        "seed": args.seed,
        "book_frac": args.book_frac,
        "story_frac": args.story_frac,
        "min_words": args.min_words,
        "vocab": sp.get_piece_size(),
        "documents": {s: len(docs[s]) for s in SOURCES},
        "dedup": counts,
        "leakage": leaks,
        "tokens": tokens,
        "tokens_total": totals,
        "held_out_documents": held,
        "seconds": round(time.time() - t0),
    }
    json.dump(report, open(os.path.join(args.out, "prepare_report.json"), "w"), indent=1)
    log(f"prepared {args.out} in {report['seconds']} s")


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def load_arrays(data, part):
    return {s: np.load(os.path.join(data, f"{part}.{s}.npy"), mmap_mode="r") for s in SOURCES}


def parse_mix(text):
    mix = {s: 1.0 for s in SOURCES}
    for item in filter(None, text.split(",")):
        k, v = item.split("=")
        if k not in mix:
            raise SystemExit(f"--mix: unknown source {k!r} (one of {', '.join(SOURCES)})")
        mix[k] = float(v)
    return mix


def window_batches(lengths, mix, window, per_batch, seed):
    """Endless batches of (source index, start) pairs, each a window of window + 1 tokens; batch i from a
    generator seeded with (seed, i): the same stream on every rank, cheap to skip when resuming."""
    room = np.array([max(0, n - window - 1) for n in lengths], dtype=np.float64)
    p = room * np.array(mix)
    p /= p.sum()
    i = 0
    while True:
        rng = np.random.default_rng([seed, i])
        src = rng.choice(len(p), size=per_batch, p=p)
        starts = (rng.random(per_batch) * (room[src] + 1)).astype(np.int64)
        yield list(zip(src.tolist(), starts.tolist()))
        i += 1


def windows_tensor(arrays, batch, window):
    return torch.from_numpy(np.stack([np.asarray(arrays[s][o : o + window + 1], dtype=np.int64) for s, o in batch]))


def lm_nll(model, x):
    """Summed NLL of x[:, 1:] given the tokens before, and the count."""
    logits, _ = model(x[:, :-1])
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), x[:, 1:].reshape(-1), reduction="sum")
    return nll, x[:, 1:].numel()


def val_windows(arrays, window, n):
    """n evenly spaced windows of each source's validation array (the same every time)."""
    out = {}
    for s, arr in arrays.items():
        room = arr.size - window - 1
        if room < 0:
            continue
        starts = sorted({int(room * k / max(1, n - 1)) for k in range(n)})
        out[s] = torch.from_numpy(np.stack([np.asarray(arr[o : o + window + 1], dtype=np.int64) for o in starts]))
    return out


def validate(model, windows, batch=16):
    r, total, count = {}, 0.0, 0
    for s, x in windows.items():
        nll, n = 0.0, 0
        for i in range(0, len(x), batch):
            a, b = lm_nll(model, x[i : i + batch])
            nll, n = nll + float(a), n + b
        r[f"{s}_ppl"] = round(math.exp(nll / n), 2)
        total, count = total + nll, count + n
    return {**nll_and_ppl(total / count), **r}


def save_atomic(path, model, meta, config):
    """The checkpoint layout of training.save_checkpoint, written beside and renamed over the path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    torch.save({"config": config, "state": model.state_dict(), "meta": meta}, tmp)
    os.replace(tmp, path)


def cmd_train(args):
    device = pick_device(args.device)  # TensorFloat-32 on CUDA
    train = load_arrays(args.data, "train")
    vocab = T.load(os.path.join(args.data, "spm.model")).get_piece_size()
    config = asdict(
        GPT2Config(
            vocab_size=vocab,
            n_positions=args.window,
            n_embd=args.n_embd,
            n_layer=args.n_layer,
            n_head=args.n_head,
            dropout=args.dropout,
        )
    )
    resume = resume_checkpoint(args)
    if resume:  # the run keeps its shape; the size flags of a resuming command are ignored
        saved = torch.load(resume, map_location="cpu")["config"]
        if saved != config:
            log(f"resuming {resume}: keeping its config {saved} (not {config})")
        config = saved
    window = config["n_positions"]
    torch.manual_seed(args.seed)
    model = make(config).to(device)
    log(f"backbone GPT-2 {config}: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")
    sizes = {s: int(a.size) for s, a in train.items()}
    mix = parse_mix(args.mix)
    log(f"train tokens {sizes}, mix {mix}, window {window}, {args.batch_tokens // window} windows a batch per process")
    val = val_windows(load_arrays(args.data, "valid"), window, args.val_windows)
    batches = window_batches(
        [sizes[s] for s in SOURCES],
        [mix[s] for s in SOURCES],
        window,
        max(1, args.batch_tokens // window),
        args.seed,
    )
    arrays = [train[s] for s in SOURCES]

    def step(batch):
        nll, n = lm_nll(model, windows_tensor(arrays, batch, window).to(device))
        loss = nll / n
        return loss, loss.item(), n

    train_loop(
        model,
        batches,
        args,
        device,
        step,
        lambda: validate(model, {s: x.to(device) for s, x in val.items()}),
        meta={"kind": "backbone-gpt2", "data": os.path.abspath(args.data), "mix": mix},
        save=lambda path, m: save_atomic(path, model, m, config),
        keep_best=True,
        find_unused=False,
    )


# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------
def sliding_nll(model, arr, window, stride, limit=0, device="cpu"):
    """Each token of arr (after the first) scored once; a window after the first scores only its last
    stride + 1 tokens, so each has at least window - stride tokens of context. Returns (nll sum, tokens,
    the scored token ids)."""
    arr = np.asarray(arr[:limit] if limit else arr, dtype=np.int64)
    ctx = max(1, window - stride)
    total, n, scored, pos = 0.0, 0, [], 0  # pos: the last token scored (or the first, context only)
    while pos + 1 < arr.size:
        start = max(0, pos + 1 - ctx) if pos else 0
        end = min(arr.size, start + window + 1)
        x = torch.from_numpy(arr[start:end])[None].to(device)
        logits, _ = model(x[:, :-1])
        first = pos - start  # the logit that predicts token pos + 1
        y = x[0, first + 1 :]
        total -= float(F.log_softmax(logits[0, first:], -1).gather(1, y[:, None]).sum())
        n += y.numel()
        scored.append(y.cpu().numpy())
        pos = end - 1
    return total, n, np.concatenate(scored) if scored else np.zeros(0, np.int64)


def cmd_eval(args):
    sp = T.load(os.path.join(args.data, "spm.model"))
    model, meta = load_checkpoint(args.ckpt, make)
    model.eval()
    device = pick_device(args.device)  # the CPU with one thread; a GPU chunk's export scores on the GPU
    model.to(device)
    window = model.config.n_positions
    args.stride = min(args.stride or window // 2, window - 1)
    word_start = np.array([sp.id_to_piece(i).startswith("\u2581") for i in range(sp.get_piece_size())])
    result = {
        "ckpt": os.path.abspath(args.ckpt),
        "steps": meta.get("steps"),
        "tokens": meta.get("tokens"),
        "seconds": meta.get("seconds"),
        "window": window,
        "stride": args.stride,
    }
    with torch.no_grad():
        for part in args.splits.split(","):
            arrays = load_arrays(args.data, part)
            for s in SOURCES:
                nll, n, y = sliding_nll(model, arrays[s], window, args.stride, limit=args.limit, device=device)
                words = int(word_start[y].sum())
                r = {**nll_and_ppl(nll / n), "tokens": n, "word_ppl": round(math.exp(nll / max(1, words)), 2)}
                result[f"{part}.{s}"] = r
                log(f"{part} {s}: {r}")
        model.cpu()  # sample() feeds CPU tensors
        for i, prompt in enumerate(
            [
                "Once upon a time, there was a little girl named Lily.",
                "The old house at the end of the lane had been empty for years.",
            ]
        ):
            ids = ([T.BOS] + sp.encode(prompt))[-(window // 2) :]
            ids = sample(model, ids, min(args.gen_tokens, window - len(ids)), seed=i)
            print(prompt, "->", sp.decode(ids), flush=True)
    print(json.dumps(result))
    if args.json:
        json.dump(result, open(args.json, "w"), indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["prepare", "train", "eval"])
    p.add_argument("--data", default="../../.data/backbone", help="train/eval: the prepared folder")
    p.add_argument("--out", default=None, help="prepare: the folder to write; train: the checkpoint")
    p.add_argument("--shared", default=os.path.join(D.SHARED), help="prepare: ../shared (DRAFTSMITH_SHARED)")
    p.add_argument("--seed", type=int, default=D.SEED)
    p.add_argument("--book-frac", type=float, default=0.02, help="prepare: the books held out for valid, and for test")
    p.add_argument(
        "--story-frac", type=float, default=0.05, help="prepare: the stories held out for valid, and for test"
    )
    p.add_argument("--min-words", type=int, default=MIN_WORDS, help="prepare: shorter paragraphs are not deduplicated")
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--spm-paragraphs", type=int, default=400000, help="prepare: the tokenizer's training sample")
    p.add_argument("--device", default="auto")
    p.add_argument("--ckpt", default=None, help="eval: the checkpoint")
    p.add_argument("--minutes", type=float, default=600)
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=300)
    p.add_argument("--batch-tokens", type=int, default=4096, help="per process (a multiple of --window)")
    p.add_argument("--window", type=int, default=256)
    p.add_argument("--n-embd", type=int, default=256)
    p.add_argument("--n-layer", type=int, default=6)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--dropout", type=float, default=0.05)
    p.add_argument("--mix", default="books=1,simple=3,tiny=3", help="train: weight of a source's tokens in the draw")
    p.add_argument("--val-windows", type=int, default=16, help="train: validation windows per source")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--val-every", type=int, default=100)
    p.add_argument("--splits", default="valid,test", help="eval: the parts to measure")
    p.add_argument(
        "--stride",
        type=int,
        default=0,
        help="eval: tokens scored per window after the first (0: half the context)",
    )
    p.add_argument("--limit", type=int, default=0, help="eval: the first tokens of each array only (0: all)")
    p.add_argument("--gen-tokens", type=int, default=60)
    p.add_argument("--json", default=None, help="eval: also write the numbers here")
    add_resume_arg(p)
    args = p.parse_args()
    if args.cmd == "prepare":
        args.out = args.out or args.data
    elif args.cmd == "train":
        args.out = args.out or os.path.join(args.data, "runs", "backbone.pt")
    else:
        args.ckpt = args.ckpt or os.path.join(args.data, "runs", "backbone.pt")
    {"prepare": cmd_prepare, "train": cmd_train, "eval": cmd_eval}[args.cmd](args)


if __name__ == "__main__":
    main()
