"""What every system's ONNX export shares: the opset, the per-layer cache tensors' names and axes,
a PyTorch greedy continuation for the parity fixtures, and the manifest's file hashes."""
import hashlib

import torch

from . import tokenizer as T

OPSET = 16  # ScatterElements with reduction="add": TAAS's pointer copy distribution (modules.PointerGenerator)


def cache_names(n_layers, prefix):
    """One key and one value tensor [B,H,T,dh] per decoder layer: "{prefix}.{i}.key", "{prefix}.{i}.value"."""
    return [f"{prefix}.{i}.{kv}" for i in range(n_layers) for kv in ("key", "value")]


def cache_axes(names, batch, length):
    return {n: {0: batch, 2: length} for n in names}


def layer_caches(stacked):
    """[L,2,B,H,T,dh] -> [key_0, value_0, key_1, ...] as the decoder takes them."""
    return [stacked[i, j] for i in range(stacked.shape[0]) for j in range(2)]


def greedy_reference(step, first, steps=12):
    """PyTorch's greedy continuation for a parity fixture; step(token [1,1]) -> log-probs [1,V]."""
    out, tok = [], first
    for _ in range(steps):
        nid = int(step(tok).argmax(-1))
        out.append(nid)
        if nid == T.EOS:
            break
        tok = torch.tensor([[nid]])
    return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
