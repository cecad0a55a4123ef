"""Runs a training command in N processes under DistributedDataParallel (dist.py).

  python3 -m draftsmith_train.launch [--nproc N|auto] -m draftsmith_train.roundtrip train --data ... --out ...
  bash models/train/launch.sh        [--nproc N|auto] -m draftsmith_train.roundtrip train ...

--nproc auto (the default, or NPROC in the environment): one process per GPU when CUDA is present,
else one per CPU core (os.sched_getaffinity), each with one thread (OMP_NUM_THREADS=1: two threads in
one process are slower here than one, two processes of one thread use both cores). With 1 the command
runs as it is, in this process's place.

Where torchrun works (torch 2.x, the GPU machine) it starts the processes (`torchrun --standalone`);
Debian's torch 1.13 torchrun fails under Python 3.11 (elastic's to_map), so there this starts them
itself, with MASTER_ADDR, MASTER_PORT (a free port), WORLD_SIZE, RANK and LOCAL_RANK in each one's
environment. LAUNCHER=spawn forces the own launcher, LAUNCHER=torchrun torchrun. If a rank fails the
others are stopped, and the exit status is the first failure's.
"""
import os
import signal
import socket
import subprocess
import sys
import time


def auto_nproc():
    try:
        import torch

        if torch.cuda.is_available():
            return max(1, torch.cuda.device_count())
    except ImportError:
        pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_works():
    try:
        import torch

        return int(torch.__version__.split(".")[0]) >= 2
    except ImportError:
        return False


def spawn(n, cmd):
    """n copies of `python3 cmd...`, rank r with the env vars; returns the exit status."""
    port = str(free_port())
    procs = []
    for r in range(n):
        env = dict(
            os.environ,
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
            WORLD_SIZE=str(n),
            RANK=str(r),
            LOCAL_RANK=str(r),
            LOCAL_WORLD_SIZE=str(n),
            OMP_NUM_THREADS="1",
        )
        procs.append(subprocess.Popen([sys.executable] + cmd, env=env))

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                p.terminate()

    signal.signal(signal.SIGTERM, lambda *a: (stop(), sys.exit(143)))
    status = 0
    try:
        while any(p.poll() is None for p in procs):
            failed = [p.returncode for p in procs if p.returncode not in (None, 0)]
            if failed and not status:
                status = failed[0]
                print(f"[launch] a rank exited with {status}: stopping the others", file=sys.stderr, flush=True)
                stop()
            time.sleep(0.2)
    except KeyboardInterrupt:
        stop()
        status = 130
    for p in procs:
        p.wait()
        if p.returncode and not status:
            status = p.returncode
    return status


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    nproc = os.environ.get("NPROC", "auto")
    if argv[:1] == ["--nproc"]:
        nproc, argv = argv[1], argv[2:]
    elif argv and argv[0].startswith("--nproc="):
        nproc, argv = argv[0].split("=", 1)[1], argv[1:]
    if not argv or argv[0] != "-m":
        sys.exit("usage: python3 -m draftsmith_train.launch [--nproc N|auto] -m MODULE ARGS...")
    n = auto_nproc() if nproc == "auto" else int(nproc)
    if n <= 1:
        os.execv(sys.executable, [sys.executable] + argv)
    how = os.environ.get("LAUNCHER") or ("torchrun" if torchrun_works() else "spawn")
    print(f"[launch] {n} processes ({how}): {' '.join(argv)}", file=sys.stderr, flush=True)
    if how == "torchrun":
        os.execv(
            sys.executable,
            [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={n}"] + argv,
        )
    sys.exit(spawn(n, argv))


if __name__ == "__main__":
    main()
