"""DistributedDataParallel for the training loop (training.train_loop): one command
uses both CPU cores here (gloo, one thread per process) and every GPU of a larger machine (nccl).

The processes come from launch.py / launch.sh (or torchrun, where it works: torch 2.x on the GPU
machine; Debian's torch 1.13 torchrun fails under Python 3.11). Each reads RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT from the environment; without WORLD_SIZE (or with 1) nothing
here changes a single-process run.

  - the model is wrapped in DDP (gradients averaged across ranks after each backward), and every rank
    starts from rank 0's weights (DDP broadcasts them);
  - each rank trains on its own slice of the batch stream: every rank draws the same (seeded) stream
    and keeps batches rank, rank + W, rank + 2W, ... so the ranks take the same number of steps;
    --batch-tokens is per rank (a step of W ranks trains on W x batch-tokens), --steps counts steps;
  - only rank 0 validates, saves and logs; the checkpoints hold the unwrapped model (no "module."
    prefix), so they resume with or without DDP, at any world size;
  - the stop decision (--minutes, --steps) is rank 0's, broadcast every step, so all ranks stop together.
"""
import os

import torch
import torch.distributed as tdist

_state = {"rank": 0, "world": 1, "local_rank": 0, "cuda": False}


def _dev():
    """Where the small tensors of sum_all and decide live: nccl reduces CUDA tensors only."""
    return torch.device("cuda", _state["local_rank"]) if _state["cuda"] else torch.device("cpu")


def init(device=None):
    """From the environment (WORLD_SIZE > 1): the process group (nccl on CUDA, else gloo); the rank's
    GPU when device is CUDA. Returns (rank, world). Safe to call more than once."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return 0, 1
    if not tdist.is_initialized():
        cuda = device is not None and torch.device(device).type == "cuda"
        local = int(os.environ.get("LOCAL_RANK", os.environ.get("RANK", "0")))
        if cuda:
            torch.cuda.set_device(local)
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29511")
        tdist.init_process_group("nccl" if cuda else "gloo")
        _state.update(rank=tdist.get_rank(), world=tdist.get_world_size(), local_rank=local, cuda=cuda)
    return _state["rank"], _state["world"]


def rank():
    return _state["rank"]


def world():
    return _state["world"]


def is_main():
    return _state["rank"] == 0


def local_device(device):
    """cuda -> cuda:LOCAL_RANK under several processes (each its own GPU); otherwise device itself."""
    device = torch.device(device)
    world_env = int(os.environ.get("WORLD_SIZE", "1"))
    if device.type == "cuda" and world_env > 1 and device.index is None:
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return device


def shard(batches):
    """The rank's slice of an (endless, identically seeded) batch stream: items rank, rank + W, ..."""
    r, w = _state["rank"], _state["world"]
    if w == 1:
        yield from batches
        return
    for i, b in enumerate(batches):
        if i % w == r:
            yield b


class _Step(torch.nn.Module):
    """A module whose forward is a recipe's step function (which calls its model's own loss method),
    so DDP sees a forward before each backward; model is a submodule, so its parameters are DDP's."""

    def __init__(self, model, step_fn):
        super().__init__()
        self.model = model
        self.step_fn = step_fn

    def forward(self, batch):
        return self.step_fn(batch)


def wrap_step(model, step_fn, find_unused=None):
    """step_fn(batch) -> outputs, routed through DDP when world > 1 (the gradients of the following
    backward are averaged across ranks). device_ids stays None: the batch (Python lists) passes as is."""
    if _state["world"] == 1:
        return step_fn
    if find_unused is None:
        find_unused = os.environ.get("DDP_FIND_UNUSED", "0") == "1"
    ddp = torch.nn.parallel.DistributedDataParallel(_Step(model, step_fn), find_unused_parameters=find_unused)
    return ddp


def sum_all(x):
    """The sum over ranks of a number (tokens trained, for the log's tok/s)."""
    if torch.is_tensor(x):
        x = x.item()
    if _state["world"] == 1:
        return x
    t = torch.tensor([float(x)], dtype=torch.float64, device=_dev())
    tdist.all_reduce(t)
    return int(round(t.item())) if isinstance(x, int) else t.item()


def decide(flag):
    """Rank 0's boolean, on every rank (whether to stop: elapsed time differs a little between ranks)."""
    if _state["world"] == 1:
        return bool(flag)
    t = torch.tensor([1 if flag else 0], dtype=torch.int64, device=_dev())
    tdist.broadcast(t, 0)
    return bool(t.item())


def barrier():
    if _state["world"] > 1:
        tdist.barrier()


def gather_objects(obj):
    """Every rank's obj, as a list (the test checks the ranks' parameters and batches with it)."""
    if _state["world"] == 1:
        return [obj]
    out = [None] * _state["world"]
    tdist.all_gather_object(out, obj)
    return out


def finish():
    """Waits for every rank, then ends the process group (call at the end of a command)."""
    if _state["world"] > 1 and tdist.is_initialized():
        tdist.barrier()
        tdist.destroy_process_group()
        _state.update(rank=0, world=1, local_rank=0, cuda=False)


def leave():
    """A rank other than 0 at the end of a training loop whose caller goes on alone (final validation,
    saves, exports: training.train_loop with others_leave): exits this process with status 0."""
    import sys

    sys.stdout.flush()
    os._exit(0)
