"""The synopsis scorer of Summarize Document's synopsis mode (extension/engine/systems/synopsis.ts).

SciTLDR-A (Cachola et al. 2020; ../shared/data/scitldr): a paper's abstract -> a one-sentence TLDR. The
scorer picks one sentence of the abstract: linear over each sentence's features (the TAAS model's
topic-aware attention as the extractive mode aggregates it, position, length, shared words, and a small
vocabulary of the words it holds), a softmax over the document's sentences, trained by cross-entropy with
the oracle label (the sentence with the best ROUGE-1 F1 against the TLDR). The features are computed once
by the engine itself, so training and the editor see the same numbers:

    python3 -m draftsmith_train.synopsis prepare --data ../../.data
    node dist/cli.js eval summarize --domain synopsis --split train --features .data/synopsis-features.train.jsonl
    node dist/cli.js eval summarize --domain synopsis --split val --features .data/synopsis-features.val.jsonl
    python3 -m draftsmith_train.synopsis train --data ../../.data --out ../summarize

Settings (L2 weight, vocabulary size) are chosen on SciTLDR's dev split by the mean ROUGE-1 of the chosen
sentence; the test split is only scored by `eval summarize`. Each finished setting is kept in
--runs (resumable: a rerun skips the settings already there).
"""

import argparse
import hashlib
import json
import math
import os
import time
from collections import Counter

import torch

from .data import SHARED, normalize, write_jsonl

SEED = 20261127
DENSE = [
    "attention rank",
    "attention mass",
    "top attended words",
    "first",
    "second",
    "last",
    "inverse position",
    "relative position",
    "length",
    "short",
    "shared words",
]


def cmd_prepare(args):
    """synopsis.{train,val,test}.jsonl: the abstract's sentences joined, every TLDR kept (dev and test have
    several: the author's first, then the peer reviewers')."""
    for part, name in (("train", "train"), ("val", "dev"), ("test", "test")):
        rows = [json.loads(l) for l in open(os.path.join(SHARED, f"data/scitldr/scitldr_a.{name}.jsonl"))]
        pairs = [
            {
                "domain": "synopsis",
                "id": r["paper_id"],
                "source": normalize(" ".join(s.strip() for s in r["source"])),
                "target": normalize(r["target"][0]),
                "references": [normalize(t) for t in r["target"]],
            }
            for r in rows
            if r["source"] and r["target"]
        ]
        write_jsonl(os.path.join(args.data, f"synopsis.{part}.jsonl"), pairs)
        print(part, len(pairs))


def load_features(path):
    docs = [json.loads(l) for l in open(path)]
    return [d for d in docs if d["candidates"]]


def vocabulary(docs, size, min_df=10):
    """The `size` words in most training sentences (at least min_df), ties by the word."""
    df = Counter(w for d in docs for c in d["candidates"] for w in c["words"])
    return [w for w, n in sorted(df.items(), key=lambda x: (-x[1], x[0])) if n >= min_df][:size]


def tensors(docs, vocab):
    """Per document: [sentences, dense + vocabulary] features and each sentence's ROUGE-1."""
    index = {w: i for i, w in enumerate(vocab)}
    out = []
    for d in docs:
        x = torch.zeros(len(d["candidates"]), len(DENSE) + len(vocab))
        for i, c in enumerate(d["candidates"]):
            x[i, : len(DENSE)] = torch.tensor(c["dense"])
            for w in c["words"]:
                j = index.get(w)
                if j is not None:
                    x[i, len(DENSE) + j] = 1.0
        r1 = torch.tensor([c["rouge"][0] for c in d["candidates"]])
        out.append((x, r1))
    return out


def train_one(train, l2, epochs, lr, seed):
    """Full-batch Adam on the listwise loss: -log softmax(w·x)[oracle] per document, mean, + l2·|w|²."""
    torch.manual_seed(seed)
    dim = train[0][0].shape[1]
    w = torch.zeros(dim, requires_grad=True)
    opt = torch.optim.Adam([w], lr=lr)
    # All documents in one padded batch: sentences past a document's end are masked out.
    n = max(x.shape[0] for x, _ in train)
    X = torch.zeros(len(train), n, dim)
    mask = torch.zeros(len(train), n, dtype=torch.bool)
    oracle = torch.zeros(len(train), dtype=torch.long)
    for i, (x, r1) in enumerate(train):
        X[i, : x.shape[0]] = x
        mask[i, : x.shape[0]] = True
        oracle[i] = int(torch.argmax(r1))  # ties: the first, as np.argmax
    for _ in range(epochs):
        opt.zero_grad()
        z = (X @ w).masked_fill(~mask, -1e9)
        loss = torch.nn.functional.cross_entropy(z, oracle) + l2 * (w * w).sum()
        loss.backward()
        opt.step()
    return w.detach(), float(loss)


def mean_r1(docs, w):
    """Mean ROUGE-1 F1 (multi-max) of the sentence each document's scorer ranks first (ties: the first)."""
    return sum(float(r1[int(torch.argmax(x @ w))]) for x, r1 in docs) / len(docs)


def cmd_train(args):
    t0 = time.process_time()
    train_docs = load_features(args.train or os.path.join(args.data, "synopsis-features.train.jsonl"))
    dev_docs = load_features(args.dev or os.path.join(args.data, "synopsis-features.val.jsonl"))
    os.makedirs(os.path.dirname(os.path.abspath(args.runs)), exist_ok=True)
    done = {}
    if os.path.exists(args.runs):
        for l in open(args.runs):
            r = json.loads(l)
            done[(r["vocab"], r["l2"])] = r
    first = sum(float(r1[0]) for _, r1 in tensors(dev_docs, [])) / len(dev_docs)
    oracle = sum(float(r1.max()) for _, r1 in tensors(dev_docs, [])) / len(dev_docs)
    print(f"dev ROUGE-1 (the feature file's multi-max): first sentence {first:.4f}, oracle {oracle:.4f}")
    for size in args.vocab:
        vocab = vocabulary(train_docs, size)
        tr, dv = tensors(train_docs, vocab), tensors(dev_docs, vocab)
        for l2 in args.l2:
            if (size, l2) in done:
                continue
            w, loss = train_one(tr, l2, args.epochs, args.lr, args.seed)
            r = {"vocab": size, "l2": l2, "loss": loss, "dev_r1": mean_r1(dv, w), "train_r1": mean_r1(tr, w)}
            r["weights"] = w.tolist()
            done[(size, l2)] = r
            with open(args.runs, "a") as f:
                f.write(json.dumps(r) + "\n")
            print(f"vocab {size:4d} l2 {l2:g}: loss {loss:.4f} train R-1 {r['train_r1']:.4f} dev R-1 {r['dev_r1']:.4f}")
    best = max(done.values(), key=lambda r: (r["dev_r1"], -r["vocab"], r["l2"]))
    vocab = vocabulary(train_docs, best["vocab"])
    w = best["weights"]
    cpu = time.process_time() - t0
    out = {
        "dense": DENSE,
        "denseWeights": [round(x, 6) for x in w[: len(DENSE)]],
        "vocabulary": vocab,
        "wordWeights": [round(x, 6) for x in w[len(DENSE) :]],
        "training": {
            "data": "SciTLDR-A train (1,992 abstracts), oracle: the sentence with the best ROUGE-1 F1",
            "selected on": "SciTLDR-A dev, mean ROUGE-1 F1 (multi-max) of the chosen sentence",
            "vocabulary": best["vocab"],
            "l2": best["l2"],
            "epochs": args.epochs,
            "seed": args.seed,
            "dev R-1": round(best["dev_r1"], 4),
            "dev R-1 first sentence": round(first, 4),
            "cpu seconds (this run)": round(cpu, 1),
        },
    }
    path = os.path.join(args.out, "synopsis.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    register(args.out, "synopsis.json")
    print(f"best: vocab {best['vocab']} l2 {best['l2']:g} dev R-1 {best['dev_r1']:.4f}; wrote {path} ({cpu:.0f} CPU s)")


def register(folder, name):
    """The file's role and sha256 in the folder's model.json (the engine checks every file it loads)."""
    path = os.path.join(folder, "model.json")
    manifest = json.load(open(path))
    manifest["files"]["synopsis"] = name
    manifest["sha256"][name] = hashlib.sha256(open(os.path.join(folder, name), "rb").read()).hexdigest()
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cmd", choices=["prepare", "train"])
    p.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../../.data"))
    p.add_argument("--train", help="features of the training split (default DATA/synopsis-features.train.jsonl)")
    p.add_argument("--dev", help="features of the dev split (default DATA/synopsis-features.val.jsonl)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../summarize"))
    p.add_argument("--runs", default=os.path.join(os.path.dirname(__file__), "../runs/synopsis.jsonl"))
    p.add_argument("--vocab", type=int, nargs="+", default=[0, 100, 300, 1000])
    p.add_argument("--l2", type=float, nargs="+", default=[1e-4, 1e-3, 1e-2, 3e-2, 1e-1])
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=SEED)
    args = p.parse_args()
    torch.set_num_threads(1)
    {"prepare": cmd_prepare, "train": cmd_train}[args.cmd](args)


if __name__ == "__main__":
    main()
