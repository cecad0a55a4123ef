"""gpu_chunk.sh: every system's GPU run in resumable chunks of at most 10 minutes: pack, run, unpack
(or `local`, on a GPU machine that holds the data itself: every system's stages one after the other).

Each system is a list of stages (summarize: pretrain -> finetune; essay: pretrain -> stage1 -> stage2;
story: lm -> premise -> seq2seq -> fusion; roundtrip: train; reply: nrm -> memory -> esed; backbone:
train), each a training command of training.train_loop with --resume, budgeted by <STAGE>_STEPS and
<STAGE>_MIN (whichever comes first; the step and minute counts are the stage's whole, over all
chunks). WORK/SYSTEM/state.json names the stage the next chunk
trains; a chunk goes on from that stage's checkpoint (or starts it from the earlier stages' ones),
moves to the next stage when one is done, and stops when its MINUTES are spent; then it exports the
latest model and hands back state.json, the checkpoints the next chunk needs that it changed, and
the export, xz-compressed in parts of at most 16 MiB (the device returns 64 MiB at most).

The backbone (backbone.py) also trains on this CPU (train_backbone.sh, in the background): its chunk
starts from whichever checkpoint has seen more tokens, the CPU run's (RUNS, default DATA/runs; only
read) or the last chunk's (WORK/backbone/runs), trains MINUTES at a GPU-sized batch (the model keeps
the checkpoint's shape), and its export is the held-out perplexities (backbone.py eval) on the GPU.
unpack leaves the checkpoint in WORK/backbone/runs and prints how the CPU run goes on from it.

  python3 -m draftsmith_train.chunk pack SYSTEM              # -> WORK/SYSTEM.tar.xz (<= 60 MiB)
  python3 -m draftsmith_train.chunk run SYSTEM OUTDIR        # on the GPU machine (MINUTES, NPROC)
  python3 -m draftsmith_train.chunk unpack SYSTEM FILES_DIR  # -> WORK/SYSTEM/{state.json,runs,export}
  python3 -m draftsmith_train.chunk local SYSTEM...|all      # a GPU machine with the data: train and export in place
  python3 -m draftsmith_train.chunk slim [--half] [--int8] CKPT...  # drop optimizer state (float16, int8 rows)
  python3 -m draftsmith_train.chunk widen CKPT...            # int8 rows back to float32

Run from models/train (gpu_chunk.sh does). WORK: $GPU_WORK, default ../../.work/gpu. The sizes and
budgets (SETTINGS, overridable from the environment) are fixed at the first pack in
WORK/SYSTEM/chunk.json, so every chunk trains the same configuration; delete that file (and runs/,
state.json) to start another.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

from .training import best_path  # the lowest-NLL weights beside a checkpoint: reply-nrm.pt -> reply-nrm.best.pt

WORK = os.environ.get("GPU_WORK", "../../.work/gpu")
# bytes; a smaller one tries the slimmer levels. The device carries 64 MiB with the working tree, which
# is still ~1 MiB after `gpu_chunk.sh aside` (models/train's code): 60 MiB leaves it room.
LIMIT = int(os.environ.get("BUNDLE_LIMIT", 60 * 1024 * 1024))
BACK_LIMIT = 60 * 1024 * 1024  # what a run hands back: 64 MiB at most, the log beside it
PART = 16 * 1024 * 1024
BIG = str(10**9)  # "no step limit": the stage's minutes decide

# A stage: the command (module, subcommand), the checkpoint it writes, those it starts from, the data
# files it reads, and its flags from the settings s and the checkpoint folder r.
# once: a command that is not a training run (reply's memory): done when its output exists.
# best_home: the lowest-NLL weights beside the checkpoint do not travel in the bundle (the backbone's are a
# record only, and its GPU chunk's first validation beats a CPU one); new ones written by the chunk come back.
Stage = namedtuple("Stage", "name command out reads data flags once best_home", defaults=(False, False))
# The export: the checkpoints to export (the first that exists), those it reads beside, its data, its command.
Export = namedtuple("Export", "candidates also data command")

SUMMARIZE = "draftsmith_train.summarize"
FINETUNE_MIX = [
    "--train",
    "summarize.train.jsonl@news*3",
    "--train",
    "summarize-gsg.train.jsonl",
    "--train",
    "summarize.train.jsonl@dialogue,tech",
    "--max-tgt",
    "80",
]
STAGES = {
    "summarize": [
        Stage(
            "pretrain",
            [SUMMARIZE, "pretrain"],
            "pretrain.pt",
            [],
            ["corpus.txt", "spm.model"],
            lambda s, r: [
                "--batch",
                s["PRETRAIN_BATCH"],
                "--warmup",
                "60",
                "--lr",
                "1e-3",
                "--max-train",
                s["MAX_TRAIN"],
            ],
        ),
        # The shipped mix (MODEL_CARD.md): news three times a pass, its gap-sentence pairs, dialogue and tech once.
        Stage(
            "finetune",
            [SUMMARIZE, "finetune"],
            "taas.pt",
            ["pretrain.pt"],
            [
                "summarize.train.jsonl",
                "summarize-gsg.train.jsonl",
                "summarize.val.jsonl",
                "bow_vocab.json",
                "spm.model",
            ],
            lambda s, r: [
                "--init",
                f"{r}/pretrain.pt",
                *FINETUNE_MIX,
                "--batch-tokens",
                s["BATCH_TOKENS"],
                "--val-every",
                s["VAL_EVERY"],
                "--max-val",
                s["MAX_VAL"],
                "--max-train",
                s["MAX_TRAIN"],
                "--ntm-batchnorm",
                "--ntm-warmup",
                s["NTM_WARMUP"],
            ],
        ),
    ],
    # train_essay.sh CORPUS=simple ONLY=shipped: its own denoising pretraining, stage 1 without the copy
    # pointer, stage 2 with it.
    "essay": [
        Stage(
            "pretrain",
            [SUMMARIZE, "pretrain"],
            "pretrain.pt",
            [],
            ["corpus.txt", "spm.model"],
            lambda s, r: [
                "--batch",
                s["PRETRAIN_BATCH"],
                "--warmup",
                "60",
                "--lr",
                "1e-3",
                "--max-train",
                s["PRETRAIN_LINES"],
            ],
        ),
        Stage(
            "stage1",
            ["draftsmith_train.essay", "train"],
            "essay.pt",
            ["pretrain.pt"],
            ["essay.train.jsonl", "essay.val.jsonl", "wordvec.vec", "spm.model"],
            lambda s, r: [
                "--init",
                f"{r}/pretrain.pt",
                "--no-copy",
                "--mix-lr-scale",
                s["MIX_LR_SCALE"],
                "--batch-tokens",
                s["BATCH_TOKENS"],
                "--val-every",
                s["VAL_EVERY"],
            ],
        ),
        Stage(
            "stage2",
            ["draftsmith_train.essay", "train"],
            "essay-copy.pt",
            ["essay.pt"],
            ["essay.train.jsonl", "essay.val.jsonl", "wordvec.vec", "spm.model"],
            lambda s, r: [
                "--init",
                f"{r}/essay.pt",
                "--warmup",
                "100",
                "--mix-lr-scale",
                s["MIX_LR_SCALE"],
                "--batch-tokens",
                s["BATCH_TOKENS"],
                "--val-every",
                s["VAL_EVERY"],
            ],
        ),
    ],
    # train_story.sh CORPUS=simple TABLE2=0 GCNN_LM=0 ABLATIONS=0: the shipped model's stages.
    "story": [
        Stage(
            "lm",
            ["draftsmith_train.story", "premise"],
            "story-lm-pretrain.pt",
            [],
            ["story_lm.train.txt", "story_lm.val.txt", "spm.model"],
            lambda s, r: ["--corpus", "lm", "--lm-lines", s["LM_LINES"]] + story_flags(s),
        ),
        Stage(
            "premise",
            ["draftsmith_train.story", "premise"],
            "story-premise.pt",
            ["story-lm-pretrain.pt"],
            ["story_premise.train.txt", "story_premise.val.txt", "spm.model"],
            lambda s, r: ["--corpus", "premise", "--init", f"{r}/story-lm-pretrain.pt"]
            + story_flags(s)
            + ["--lr", "5e-4"],
        ),
        Stage(
            "seq2seq",
            ["draftsmith_train.story", "seq2seq"],
            "story-seq2seq.pt",
            ["story-lm-pretrain.pt"],
            ["story.train.jsonl", "story.val.jsonl", "spm.model"],
            lambda s, r: ["--init-decoder", f"{r}/story-lm-pretrain.pt"] + story_flags(s),
        ),
        Stage(
            "fusion",
            ["draftsmith_train.story", "fusion"],
            "story-fusion.pt",
            ["story-seq2seq.pt", "story-lm-pretrain.pt"],
            ["story.train.jsonl", "story.val.jsonl", "spm.model"],
            lambda s, r: ["--pretrained", f"{r}/story-seq2seq.pt", "--init-decoder", f"{r}/story-lm-pretrain.pt"]
            + story_flags(s),
        ),
    ],
}


def rnn_flags(s, model):
    """The RNN recipes' sizes (training.add_rnn_train_args)."""
    return [
        "--model",
        model,
        "--hidden",
        s["HIDDEN"],
        "--embed",
        s["EMBED"],
        "--lr",
        s["LR"],
        "--batch-tokens",
        s["BATCH_TOKENS"],
        "--val-every",
        s["VAL_EVERY"],
    ]


ROUNDTRIP_DATA = ["roundtrip.train.jsonl", "roundtrip.val.jsonl", "spm.model"]
REPLY_DATA = ["reply.train.jsonl", "reply.val.jsonl", "reply.keys.json", "spm.model"]
STAGES["roundtrip"] = [
    Stage(
        "train",
        ["draftsmith_train.roundtrip", "train"],
        "roundtrip.pt",
        [],
        ROUNDTRIP_DATA,
        lambda s, r: rnn_flags(s, s["MODEL"]) + ["--layers", s["LAYERS"]],
    ),
]
# Sec. III-C of the ESED paper: the reply memory comes from a trained NRM's encoder.
STAGES["reply"] = [
    Stage("nrm", ["draftsmith_train.reply", "train"], "reply-nrm.pt", [], REPLY_DATA, lambda s, r: rnn_flags(s, "nrm")),
    Stage(
        "memory",
        ["draftsmith_train.reply", "memory"],
        "reply-memory.npz",
        ["reply-nrm.best.pt"],
        REPLY_DATA,
        lambda s, r: ["--ckpt", f"{r}/reply-nrm.best.pt"],
        once=True,
    ),
    Stage(
        "esed",
        ["draftsmith_train.reply", "train"],
        "reply-esed.pt",
        ["reply-memory.npz"],
        REPLY_DATA,
        lambda s, r: rnn_flags(s, "esed") + ["--memory", f"{r}/reply-memory.npz"],
    ),
]


# backbone.py's arrays (train_backbone.sh prepares them): the validation arrays for training, the test
# ones for the export's perplexities; every one travels whole except, with BOOKS_FRACTION < 1, the books.
BACKBONE_SPLIT = [f"{part}.{src}.npy" for part in ("train", "valid") for src in ("books", "simple", "tiny")]
STAGES["backbone"] = [
    Stage(
        "train",
        ["draftsmith_train.backbone", "train"],
        "backbone.pt",
        [],
        BACKBONE_SPLIT + ["spm.model"],
        lambda s, r: [
            "--batch-tokens",
            s["BATCH_TOKENS"],
            "--mix",
            s["MIX"],
            "--val-every",
            s["VAL_EVERY"],
            "--log-every",
            s["LOG_EVERY"],
            *s["SIZE"].split(),
        ],
        best_home=True,
    ),
]


def story_flags(s):
    return ["--batch-tokens", s["BATCH_TOKENS"], "--warmup", s["WARMUP"], "--val-every", s["VAL_EVERY"]] + s[
        "SIZE"
    ].split()


EXPORTS = {
    # The parity fixture goes beside the export (the exports' default is test/fixtures).
    "summarize": Export(
        ["taas.pt"],
        [],
        ["spm.model", "tokenizer", "bow_vocab.json"],
        lambda ck, r, d, out, s: [
            "-c",
            "import sys; from draftsmith_train.export_summarize import export; export(*sys.argv[1:])",
            ck,
            out,
            d,
            f"{out}/parity.json",
        ],
    ),
    "essay": Export(
        ["essay-copy.pt", "essay.pt"],
        [],
        ["spm.model", "tokenizer", "essay_split.json"],
        lambda ck, r, d, out, s: ["-m", "draftsmith_train.export_essay", ck, out, d, f"{out}/parity.json"],
    ),
    "story": Export(
        ["story-fusion.pt", "story-seq2seq.pt"],
        ["story-premise.pt"],
        ["spm.model", "tokenizer", "story_split.json", "story.val.jsonl", "story_premise.val.txt"],
        lambda ck, r, d, out, s: [
            "-m",
            "draftsmith_train.export_story",
            ck,
            f"{r}/story-premise.pt",
            out,
            d,
            f"{out}/parity.json",
            "",
            s["WEIGHTS"],
        ],
    ),
    # The RNN recipes export their lowest-validation-NLL weights (<out>.best.pt).
    "roundtrip": Export(
        ["roundtrip.best.pt", "roundtrip.pt"],
        [],
        ["spm.model", "tokenizer", "roundtrip.test.jsonl"],
        lambda ck, r, d, out, s: ["-m", "draftsmith_train.export_roundtrip", ck, out, d, f"{out}/parity.json"],
    ),
    # The held-out perplexities of the checkpoint the CPU run resumes from (train_backbone.sh's EVAL, on the GPU).
    "backbone": Export(
        ["backbone.pt"],
        [],
        ["valid.books.npy", "valid.simple.npy", "valid.tiny.npy", "test.books.npy", "test.simple.npy", "test.tiny.npy"],
        lambda ck, r, d, out, s: [
            "-m",
            "draftsmith_train.backbone",
            "eval",
            "--data",
            d,
            "--ckpt",
            ck,
            "--limit",
            s["EVAL_LIMIT"],
            "--json",
            f"{out}/backbone.eval.json",
        ],
    ),
    "reply": Export(
        ["reply-esed.best.pt", "reply-esed.pt"],
        ["reply-memory.npz"],
        ["spm.model", "tokenizer", "reply.test.jsonl"],
        lambda ck, r, d, out, s: [
            "-c",
            "import sys; from draftsmith_train.export_reply import export; export(*sys.argv[1:])",
            ck,
            out,
            d,
            f"{r}/reply-memory.npz",
            f"{out}/parity.json",
        ],
    ),
}

# The GPU ("larger") configuration: ~7 minutes of training per system, one chunk (MINUTES=7) each; more
# minutes or steps per stage take more chunks. Summarize and essay keep the model of the CPU recipe
# (ModelConfig has no size flags) with larger batches; story a model ~1.8x the shipped one, the
# largest whose fusion checkpoint and export come back from a chunk in float16 (bundle_levels).
SETTINGS = {
    "summarize": {
        "DATA": "../../.data",
        "PRETRAIN_STEPS": BIG,
        "PRETRAIN_MIN": "3",
        "PRETRAIN_BATCH": "64",
        "FINETUNE_STEPS": BIG,
        "FINETUNE_MIN": "4",
        "BATCH_TOKENS": "24000",
        "NTM_WARMUP": "1500",
        "VAL_EVERY": "250",
        "MAX_VAL": "300",
        "MAX_TRAIN": "0",
    },
    "essay": {
        "DATA": "../../.data/simple",
        "PRETRAIN_STEPS": BIG,
        "PRETRAIN_MIN": "2",
        "PRETRAIN_BATCH": "64",
        "PRETRAIN_LINES": "0",
        "STAGE1_STEPS": BIG,
        "STAGE1_MIN": "2.5",
        "STAGE2_STEPS": BIG,
        "STAGE2_MIN": "2.5",
        "BATCH_TOKENS": "24000",
        "VAL_EVERY": "250",
        "MIX_LR_SCALE": "1",
    },
    "story": {
        "DATA": "../../.data/simple",
        "LM_STEPS": BIG,
        "LM_MIN": "2",
        "LM_LINES": "0",
        "PREMISE_STEPS": BIG,
        "PREMISE_MIN": "1",
        "SEQ2SEQ_STEPS": BIG,
        "SEQ2SEQ_MIN": "2",
        "FUSION_STEPS": BIG,
        "FUSION_MIN": "2",
        "SIZE": "--embed-dim 192 --hidden 256 --decoder-layers 5 --attention-dim 128",
        "BATCH_TOKENS": "16000",
        "WARMUP": "200",
        "VAL_EVERY": "250",
        "WEIGHTS": "int8",
    },
    # 512 units (the shipped models: 256 and 64) and larger batches; the simple-corpus split where it exists.
    "roundtrip": {
        "DATA": "../../.data/simple" if os.path.exists("../../.data/simple/roundtrip.train.jsonl") else "../../.data",
        "MODEL": "hier-attn",
        "HIDDEN": "512",
        "EMBED": "512",
        "LAYERS": "2",
        "BATCH_TOKENS": "12000",
        "LR": "1e-3",
        "VAL_EVERY": "500",
        "TRAIN_STEPS": BIG,
        "TRAIN_MIN": "3",
    },
    "reply": {
        "DATA": "../../.data/reply" if os.path.exists("../../.data/reply/reply.train.jsonl") else "../../.data",
        "HIDDEN": "512",
        "EMBED": "512",
        "BATCH_TOKENS": "8000",
        "LR": "1e-3",
        "VAL_EVERY": "500",
        "NRM_STEPS": BIG,
        "NRM_MIN": "1.5",
        "MEMORY_STEPS": "0",
        "MEMORY_MIN": "0",
        "ESED_STEPS": BIG,
        "ESED_MIN": "1.5",
    },
    # The CPU recipe's model (train_backbone.sh: 6 x 256, window 256; a resumed run keeps its checkpoint's
    # shape anyway) at 256 windows a step (8x a step of its two processes). TRAIN_MIN counts the CPU
    # run's hours too, so it is no limit: each chunk trains its MINUTES.
    "backbone": {
        "DATA": "../../.data/backbone",
        "RUNS": "",  # the CPU run's checkpoints (train_backbone.sh's RUNS); empty: DATA/runs
        "TRAIN_STEPS": BIG,
        "TRAIN_MIN": BIG,
        "SIZE": "--n-layer 6 --n-embd 256 --n-head 4 --window 256",
        "BATCH_TOKENS": "65536",
        "MIX": "books=1,simple=3,tiny=3",
        "VAL_EVERY": "250",
        "LOG_EVERY": "50",
        "EVAL_LIMIT": "200000",  # tokens of each held-out array (train_backbone.sh's EVAL_LIMIT)
        "BOOKS_FRACTION": "1",  # < 1: a seeded subset of the train books' documents, when the bundle would not fit
        "SEED": "20261121",  # data.SEED
    },
}


def log(msg):
    print(f"chunk: {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# Checkpoints: their counters, and the slimmer forms a bundle falls back to
# ---------------------------------------------------------------------------------------------
def meta(path):
    import torch

    return torch.load(path, map_location="cpu").get("meta", {})


def slim(path, half=False, int8=False):
    """Drops the optimizer state (meta["train_state"]["optimizer"], or a checkpoint's "optimizer" of the
    earlier RNN layout; the counters stay, so the run resumes at its step with Adam's moments at zero); half:
    float16 weights; int8: weight matrices as int8 with a scale per row, as the exports store them
    (weight_storage.py), so a model exported from the widened checkpoint is the one exported from the
    original; widen() reads it back."""
    import torch

    ck = torch.load(path, map_location="cpu")
    ck.pop("optimizer", None)
    (ck.get("meta", {}).get("train_state") or {}).pop("optimizer", None)
    note = "no optimizer state"
    once = {}  # a tensor shared by several names (tied embeddings) stays one tensor, saved once

    def one(v, make):
        return once.setdefault((v.data_ptr(), tuple(v.shape), v.stride()), make(v))

    if int8:
        from .weight_storage import MIN_ELEMENTS, _fake_quant

        rows = {
            k: one(v, lambda v: _fake_quant(v)[:2])
            for k, v in ck["state"].items()
            if v.is_floating_point() and v.dim() >= 2 and v.numel() >= MIN_ELEMENTS
        }
        ck["int8"] = rows
        ck["state"] = {k: v for k, v in ck["state"].items() if k not in rows}
        note = "int8 weight matrices (a scale per row), " + note
    if half:
        ck["state"] = {k: one(v, lambda v: v.half()) if v.is_floating_point() else v for k, v in ck["state"].items()}
        note = "float16 weights, " + note
    ck.setdefault("meta", {})["slim"] = note + " (gpu_chunk.sh)"
    torch.save(ck, path)


def widen(path):
    """A checkpoint slim(int8=True) wrote, back to float32 weights every loader reads."""
    import torch

    ck = torch.load(path, map_location="cpu")
    widened = {}
    for k, (q, scale) in ck.pop("int8", {}).items():
        key = (q.data_ptr(), scale.data_ptr())
        widened.setdefault(key, (q.reshape(q.shape[0], -1).float() * scale[:, None]).reshape(q.shape))
        ck["state"][k] = widened[key]
    ck["state"] = {k: v.float() if v.is_floating_point() else v for k, v in ck["state"].items()}
    torch.save(ck, path)


def bundle_levels(runs, keep_optimizer):
    """What fit() tries, smallest loss first: the checkpoint being trained (keep_optimizer) with its
    optimizer state and the others without; none with optimizer state; float16 weights as well."""
    names = sorted(f for f in os.listdir(runs) if f.endswith(".pt")) if os.path.isdir(runs) else []
    cks = [os.path.join(runs, f) for f in names]
    if not names:
        yield "no checkpoint yet", []
    elif keep_optimizer in names:
        yield "the trained checkpoint as it is, the others without optimizer state", [
            lambda p=p: slim(p) for p in cks if not p.endswith("/" + keep_optimizer)
        ]
        yield "no optimizer state", [lambda p=os.path.join(runs, keep_optimizer): slim(p)]
    else:
        yield "no optimizer state", [lambda p=p: slim(p) for p in cks]
    yield "float16 weights without optimizer state", [lambda p=p: slim(p, half=True) for p in cks]


def tar_xz(src, dest, names):
    """names (entries of src) as dest; the same files give the same bytes (sorted names, no dates or owners)."""
    if shutil.which("xz") is None:  # a machine without xz-utils: Python's lzma, the same format in one thread
        import tarfile

        def clean(info):
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            return info

        with tarfile.open(dest, "w:xz", preset=6) as tar:
            for name in sorted(names):  # tarfile.add walks folders in sorted order
                tar.add(os.path.join(src, name), arcname=name, filter=clean)
        return os.path.getsize(dest)
    flags = ["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner"]
    with open(dest, "wb") as f:
        tar = subprocess.Popen(["tar", *flags, "-C", src, "-cf", "-", *names], stdout=subprocess.PIPE)
        subprocess.run(["xz", "-T0", "-6", "-c"], stdin=tar.stdout, stdout=f, check=True)
        if tar.wait():
            raise SystemExit(f"tar of {src} failed")
    return os.path.getsize(dest)


def untar_xz(path, dest):
    """A bundle or hand-back (its archives one after the other) into dest."""
    if shutil.which("xz") is None:
        import tarfile

        with tarfile.open(path, "r:xz", ignore_zeros=True) as tar:
            tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    else:
        subprocess.run(["tar", "-C", dest, "-xJif", path], check=True)


def fit(src, dest, limit, keep_optimizer):
    """src (a folder with runs/) as dest (tar.xz) within limit bytes, slimming the checkpoints level by
    level (bundle_levels); a level whose checkpoints alone pass the limit is not compressed. The rest
    (the data: the backbone's is 80 MB, minutes through xz here) is compressed once, runs/ at each level:
    dest is the two archives' xz streams one after the other (tar -xJif reads both)."""
    runs = os.path.join(src, "runs")
    rest, part = dest + ".rest", dest + ".runs"
    fixed = tar_xz(src, rest, sorted(f for f in os.listdir(src) if f != "runs"))
    try:
        for what, steps in bundle_levels(runs, keep_optimizer):
            for step in steps:
                step()
            names = sorted(os.listdir(runs)) if os.path.isdir(runs) else []
            raw = sum(os.path.getsize(os.path.join(runs, f)) for f in names)
            if raw > limit:
                continue
            size = fixed + (tar_xz(src, part, ["runs"]) if names else 0)
            if size <= limit:
                with open(dest, "wb") as f:
                    for p in [rest, part] if names else [rest]:
                        with open(p, "rb") as g:
                            shutil.copyfileobj(g, f)
                log(f"{dest}: {size / 2 ** 20:.1f} MiB ({what})")
                return size
            log(f"{what}: {size / 2 ** 20:.1f} MiB, over {limit / 2 ** 20:.0f} MiB")
    finally:
        for p in (rest, part):
            if os.path.exists(p):
                os.remove(p)
    raise SystemExit(f"chunk: {src} does not fit in {limit / 2 ** 20:.0f} MiB even in float16 (smaller SIZE or data)")


# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------
def settings(system, home):
    """The first pack's settings (SETTINGS, the environment over them), kept in home/chunk.json."""
    path = os.path.join(home, "chunk.json")
    if os.path.exists(path):
        s = json.load(open(path))
        changed = [k for k in s if k in os.environ and os.environ[k] != s[k]]
        if changed:
            log(f"{path} fixes {', '.join(changed)} (the first pack's); delete it to start another run")
        return s
    s = {k: os.environ.get(k, v) for k, v in SETTINGS[system].items()}
    os.makedirs(home, exist_ok=True)
    json.dump(s, open(path, "w"), indent=1)
    return s


def stage_index(system, home):
    path = os.path.join(home, "state.json")
    name = json.load(open(path))["stage"] if os.path.exists(path) else STAGES[system][0].name
    names = [st.name for st in STAGES[system]] + ["done"]
    return names.index(name)


def write_stage(system, home, index):
    names = [st.name for st in STAGES[system]] + ["done"]
    json.dump({"stage": names[index]}, open(os.path.join(home, "state.json"), "w"))


def needed(system, index, runs, bundle=False):
    """The existing checkpoints that the stages from index on and the export read: a stage's own (to
    resume) or, before it starts, those it starts from; the export's extra ones (story: the premise LM).
    bundle: what travels to the GPU, without the best weights of a best_home stage."""
    need = set(EXPORTS[system].also)
    for st in STAGES[system][index:]:
        # a stage under way resumes from its checkpoint; the lowest-NLL weights so far go with it
        best = set() if bundle and st.best_home else {best_path(st.out)}
        need |= {st.out} | best if os.path.exists(os.path.join(runs, st.out)) else set(st.reads)
    return sorted(n for n in need if os.path.exists(os.path.join(runs, n)))


def data_files(system, index):
    files = {f for st in STAGES[system][index:] for f in st.data} | set(EXPORTS[system].data)
    return sorted(files)


def current_out(system, index):
    return STAGES[system][index].out if index < len(STAGES[system]) else None


# ---------------------------------------------------------------------------------------------
# pack / run / unpack
# ---------------------------------------------------------------------------------------------
def copy(src, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dest)


def cpu_runs(s):
    """A system that also trains on this CPU (its settings name RUNS: the backbone): that run's folder."""
    return (s["RUNS"] or os.path.join(s["DATA"], "runs")) if "RUNS" in s else None


def latest_runs(system, s, index, runs):
    """The folder to pack the checkpoints from: runs (the last chunk's), or the CPU run's where that
    one's checkpoint of the stage has seen more tokens."""
    other, out = cpu_runs(s), current_out(system, index)
    have = [r for r in (runs, other) if r and out and os.path.exists(os.path.join(r, out))]
    return max(have, key=lambda r: meta(os.path.join(r, out)).get("tokens", 0)) if have else runs


def books_subset(data, s):
    """With BOOKS_FRACTION < 1: the train books cut to that share of their tokens, whole documents (each
    opens with <s>) in a seeded order, kept in their order; the same settings give the same subset."""
    import numpy as np

    from .tokenizer import BOS

    frac, path = float(s["BOOKS_FRACTION"]), os.path.join(data, "train.books.npy")
    a = np.load(path, mmap_mode="r" if frac >= 1 else None)
    starts = np.flatnonzero(a == BOS)
    if frac >= 1:
        return f"train books: all {starts.size} documents, {a.size:,} tokens"
    starts = starts if starts.size and starts[0] == 0 else np.r_[0, starts]
    lengths = np.diff(np.r_[starts, a.size])
    order = np.random.default_rng(int(s["SEED"])).permutation(starts.size)
    keep = np.sort(order[: max(1, int(np.searchsorted(np.cumsum(lengths[order]), frac * a.size, side="right")))])
    np.save(path, np.concatenate([a[starts[i] : starts[i] + lengths[i]] for i in keep]))
    kept = int(lengths[keep].sum())
    share = f"BOOKS_FRACTION {frac}, seed {s['SEED']}"
    return f"train books: {keep.size} of {starts.size} documents, {kept:,} of {a.size:,} tokens ({share})"


DATA_HOOKS = {"backbone": books_subset}  # what pack does to a system's copied data


def describe(stage_dir):
    """What a bundle holds, for the log: each file's size, each checkpoint's step."""
    for root, _, files in sorted(os.walk(stage_dir)):
        for f in sorted(files):
            path = os.path.join(root, f)
            line = f"  {os.path.relpath(path, stage_dir)}: {os.path.getsize(path) / 2 ** 20:.2f} MiB"
            if f.endswith(".pt"):
                m = meta(path)
                line += f", step {m.get('steps')}, {m.get('tokens')} tokens, {m.get('seconds')} s, val {m.get('val')}"
                line += f" [{m['slim']}]" if m.get("slim") else ""
            log(line)


def pack(system):
    home = os.path.join(WORK, system)
    s = settings(system, home)
    index = stage_index(system, home)
    if index == len(STAGES[system]):
        raise SystemExit(f"chunk: {system}: every stage is done; the export is in {home}/export")
    runs = latest_runs(system, s, index, os.path.join(home, "runs"))
    with tempfile.TemporaryDirectory(dir=WORK) as stage_dir:
        for f in data_files(system, index):
            copy(os.path.join(s["DATA"], f), os.path.join(stage_dir, "data", f))
        if system in DATA_HOOKS:
            log(DATA_HOOKS[system](os.path.join(stage_dir, "data"), s))
        for f in needed(system, index, runs, bundle=True):
            copy(os.path.join(runs, f), os.path.join(stage_dir, "runs", f))
            log(f"runs/{f} from {runs}")
        json.dump(s, open(os.path.join(stage_dir, "chunk.json"), "w"), indent=1)
        write_stage(system, stage_dir, index)
        bundle = os.path.join(WORK, f"{system}.tar.xz")
        try:
            fit(stage_dir, bundle, LIMIT, current_out(system, index))
        except SystemExit:
            if system in DATA_HOOKS:
                log(
                    f"delete {home}/chunk.json and pack again with a smaller BOOKS_FRACTION (now {s['BOOKS_FRACTION']})"
                )
            raise
        log(f"{os.path.relpath(bundle, '../..')} holds:")
        describe(stage_dir)
    log(
        f"stage {STAGES[system][index].name}; carry {os.path.relpath(bundle, '../..')} and run: bash"
        f" models/train/gpu_chunk.sh run {system}"
    )


def tee(cmd, log_path):
    """Runs cmd, its output both on stdout and appended to log_path; fails when it fails."""
    with open(log_path, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout:
            sys.stdout.write(line)
            f.write(line)
        if p.wait():
            raise SystemExit(f"chunk: {' '.join(cmd[:6])}... failed ({p.returncode})")


def train_stage(st, s, run_dir, left, log_path):
    """One stage for at most left seconds on top of what its checkpoint did; returns (steps, done)."""
    runs, out = os.path.join(run_dir, "runs"), os.path.join(run_dir, "runs", st.out)
    if st.once:
        tee(
            [
                sys.executable,
                "-m",
                *st.command,
                *st.flags(s, runs),
                "--data",
                os.path.join(run_dir, "data"),
                "--out",
                out,
            ],
            log_path,
        )
        return 0, os.path.exists(out)
    key = st.name.upper()
    steps, cap = int(s[f"{key}_STEPS"]), float(s[f"{key}_MIN"]) * 60
    before = meta(out).get("seconds", 0) if os.path.exists(out) else 0
    minutes = min(cap, before + left) / 60  # --minutes counts the whole stage (train_loop)
    nproc = os.environ.get("NPROC", "auto")
    tee(
        [
            sys.executable,
            "-m",
            "draftsmith_train.launch",
            "--nproc",
            nproc,
            "-m",
            *st.command,
            *st.flags(s, runs),
            "--data",
            os.path.join(run_dir, "data"),
            "--device",
            "auto",
            "--out",
            out,
            "--steps",
            str(steps),
            "--minutes",
            f"{minutes:.4f}",
            "--resume",
        ],
        log_path,
    )
    m = meta(out)
    return m.get("steps", 0), m.get("steps", 0) >= steps or m.get("seconds", 0) >= cap - 1


def export(system, s, run_dir, log_path):
    """The latest model exported to run_dir/export; None while there is none yet (a pretraining stage)."""
    e, runs = EXPORTS[system], os.path.join(run_dir, "runs")
    ck = next((os.path.join(runs, c) for c in e.candidates if os.path.exists(os.path.join(runs, c))), None)
    if ck is None or not all(os.path.exists(os.path.join(runs, a)) for a in e.also):
        log("no model to export yet (its stages come later)")
        return None
    out = os.path.join(run_dir, "export")
    os.makedirs(out, exist_ok=True)
    tee([sys.executable, *e.command(ck, runs, os.path.join(run_dir, "data"), out, s)], log_path)
    return ck


def run(system, outdir):
    t0 = time.time()
    run_dir = os.path.join(WORK, f"{system}.run")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    os.makedirs(outdir, exist_ok=True)
    untar_xz(os.path.join(WORK, f"{system}.tar.xz"), run_dir)
    s = json.load(open(os.path.join(run_dir, "chunk.json")))
    log_path = os.path.join(outdir, "train.log")
    index, trained = train_stages(system, s, run_dir, t0 + float(os.environ.get("MINUTES", "7")) * 60, log_path)
    exported = export(system, s, run_dir, log_path)
    hand_back(system, run_dir, index, trained, exported, outdir)
    nxt = STAGES[system][index].name if index < len(STAGES[system]) else "none (every stage done)"
    log(f"chunk done in {time.time() - t0:.0f} s; next stage: {nxt}")


def local(systems):
    """On a GPU machine that has the data (.data, as `prepare` wrote it): each system's stages in turn,
    in place under WORK/SYSTEM (runs/, export/, train.log), each stage for its whole budget; a stopped
    run goes on where it stopped (the stages resume; state.json names the next). No bundles. The
    backbone trains MINUTES (default 7) a call: its stage is the CPU run's, with no end of its own."""
    for system in systems:
        t0, home = time.time(), os.path.join(WORK, system)
        s = settings(system, home)
        # the backbone's stage has no end of its own (it goes on from the CPU run): MINUTES a call
        minutes = os.environ.get("MINUTES", "7") if "RUNS" in s else ""
        deadline = t0 + float(minutes) * 60 if minutes else float("inf")
        data = os.path.join(home, "data")
        if not os.path.exists(data):
            os.symlink(os.path.abspath(s["DATA"]), data)
        log_path = os.path.join(home, "train.log")
        index, _ = train_stages(system, s, home, deadline, log_path)
        export(system, s, home, log_path)
        log(
            f"{system}: {time.time() - t0:.0f} s; export in {home}/export"
            if index == len(STAGES[system])
            else f"{system}: stopped at stage {STAGES[system][index].name}"
        )


def train_stages(system, s, run_dir, deadline, log_path):
    """The stages from state.json's on, until every one is done or the deadline (time.time()) is near;
    returns (the next stage's index, the checkpoints trained)."""
    min_stage = float(os.environ.get("MIN_STAGE_S", "15"))  # a stage is not started with less time left
    index, trained = stage_index(system, run_dir), set()
    while index < len(STAGES[system]):
        left = deadline - time.time()
        if left < min_stage:
            break
        st = STAGES[system][index]
        log(f"stage {st.name}: up to {left:.0f} s")
        steps, done = train_stage(st, s, run_dir, left, log_path)
        trained |= {st.out, best_path(st.out)}
        if not done:
            break
        log(f"stage {st.name} done at step {steps}")
        index += 1
        write_stage(system, run_dir, index)
    return index, trained


def hand_back(system, run_dir, index, trained, exported, outdir):
    """state.json, the checkpoints this chunk changed that later chunks read (and the one exported),
    the export: one tar.xz within BACK_LIMIT, in parts of at most 16 MiB."""
    runs = os.path.join(run_dir, "runs")
    with tempfile.TemporaryDirectory(dir=run_dir) as back:
        shutil.copy(os.path.join(run_dir, "state.json"), back)
        for f in set(needed(system, index, runs)) | {os.path.basename(exported or "")}:
            if f in trained:
                copy(os.path.join(runs, f), os.path.join(back, "runs", f))
        if os.path.isdir(os.path.join(run_dir, "export")):
            copy(os.path.join(run_dir, "export"), os.path.join(back, "export"))
        whole = os.path.join(run_dir, "back.tar.xz")
        fit(back, whole, BACK_LIMIT, current_out(system, index))
    with open(whole, "rb") as f:
        for i, part in enumerate(iter(lambda: f.read(PART), b"")):
            with open(os.path.join(outdir, f"chunk.tar.xz.part-{i:03d}"), "wb") as g:
                g.write(part)
    for name in sorted(os.listdir(outdir)):
        log(f"  {name}: {os.path.getsize(os.path.join(outdir, name)) / 2 ** 20:.1f} MiB")


def unpack(system, files_dir):
    home = os.path.join(WORK, system)
    parts = sorted(f for f in os.listdir(files_dir) if f.startswith("chunk.tar.xz.part-"))
    if not parts:
        raise SystemExit(f"chunk: no chunk.tar.xz.part-* in {files_dir}")
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        whole = os.path.join(tmp, "back.tar.xz")
        with open(whole, "wb") as f:
            for p in parts:
                with open(os.path.join(files_dir, p), "rb") as g:
                    shutil.copyfileobj(g, f)
        untar_xz(whole, tmp)
        os.makedirs(os.path.join(home, "runs"), exist_ok=True)
        shutil.copy(os.path.join(tmp, "state.json"), home)
        for f in sorted(os.listdir(os.path.join(tmp, "runs"))) if os.path.isdir(os.path.join(tmp, "runs")) else []:
            shutil.move(os.path.join(tmp, "runs", f), os.path.join(home, "runs", f))
            if not f.endswith(".pt"):  # reply's memory (.npz)
                log(f"{home}/runs/{f}")
                continue
            m = meta(os.path.join(home, "runs", f))
            log(
                f"{home}/runs/{f}: {m.get('stage', m.get('model'))} at step {m.get('steps')}, {m.get('seconds')} s,"
                f" {m.get('val')}" + (f" [{m['slim']}]" if m.get("slim") else "")
            )
        if os.path.isdir(os.path.join(tmp, "export")):
            shutil.rmtree(os.path.join(home, "export"), ignore_errors=True)
            shutil.move(os.path.join(tmp, "export"), os.path.join(home, "export"))
            log(f"export in {home}/export")
            for f in sorted(os.listdir(os.path.join(home, "export"))):
                if f.endswith(".eval.json"):  # the backbone's held-out perplexities
                    r = json.load(open(os.path.join(home, "export", f)))
                    log(f"  {f}: " + ", ".join(f"{k} ppl {v['ppl']}" for k, v in r.items() if isinstance(v, dict)))
    nxt = json.load(open(os.path.join(home, "state.json")))["stage"]
    log(
        "every stage is done: check the export"
        if nxt == "done"
        else f"next stage: {nxt} (pack again for the next chunk)"
    )
    s = settings(system, home)
    if cpu_runs(s):  # the run on this CPU is not touched: these are the commands that go on from the chunk
        runs, live = os.path.abspath(os.path.join(home, "runs")), os.path.abspath(cpu_runs(s))
        ckpts = " ".join(sorted(f for f in os.listdir(runs) if f.endswith(".pt")))
        log(f"on this CPU from it: RUNS={runs} DATA={os.path.abspath(s['DATA'])} bash models/train/train_{system}.sh")
        log(f"or adopt it as the CPU run's: stop that run, then (cd {runs} && cp {ckpts} {live}/)")


def main(argv=None):
    a = list(sys.argv[1:] if argv is None else argv)
    if a[:1] == ["slim"]:
        for p in a[1:]:
            if not p.startswith("--"):
                slim(p, "--half" in a, "--int8" in a)
        return
    if a[:1] == ["widen"]:
        for p in a[1:]:
            widen(p)
        return
    if a[:1] == ["local"] and a[1:] and all(x in STAGES or x == "all" for x in a[1:]):
        os.makedirs(WORK, exist_ok=True)
        return local(list(STAGES) if "all" in a[1:] else a[1:])
    if len(a) < 2 or a[0] not in ("pack", "run", "unpack") or a[1] not in STAGES:
        raise SystemExit(__doc__)
    action, system = a[0], a[1]
    os.makedirs(WORK, exist_ok=True)
    if action == "pack":
        pack(system)
    elif action == "run":
        run(system, a[2] if len(a) > 2 else os.environ["OUT"])
    else:
        unpack(system, a[2])


if __name__ == "__main__":
    main()
