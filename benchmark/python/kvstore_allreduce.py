#!/usr/bin/env python3
"""Allreduce throughput of the distributed kvstore against bare MPI and torch.distributed (gloo).

1. One key per size (float32; 1 KB, 16 KB, 256 KB, 1 MB, 4 MB, 16 MB, 64 MB), 2 and 4 ranks:
     ours   kv = mx.kv.create('dist_sync'); kv.pushpull(key, array), waiting for the array
            after every op (the sum is in place, as a Trainer uses it), in an mpirun job;
     MPI    MPI_Allreduce(MPI_IN_PLACE, ..., MPI_FLOAT, MPI_SUM) in a C program
            (benchmark/c/mpi_allreduce.c, compiled here with mpicc into a temporary directory),
            in an mpirun job started the same way, twice: with Open MPI's default (busy polling
            unless the ranks outnumber the cores) and with OMPI_MCA_mpi_yield_when_idle=1
            (which can win when other processes share the cores); the MPI column is the faster
            of the two per size, and a line under the table says which;
     gloo   torch.distributed.all_reduce on a float32 tensor, backend gloo, ranks started by
            torch.multiprocessing in /usr/bin/python3 (Debian's python3-torch).
   Each timed repeat runs OPS ops (OPS = 16 MB / size, clamped to 1..50) after a barrier and
   is timed on rank 0; seconds per op is the median over every timed repeat of every round
   (--repeats per round after --warmup untimed ones). GB/s is the algorithm bandwidth,
   bytes / (seconds per op), as nccl-tests' "algbw". ours/MPI and ours/gloo are speed ratios:
   the peer's seconds per op over ours, so > 1 means ours is faster.
2. Fusion: 200 keys of 4 KB each, per step kv.push of every key then kv.pull of every key
   (waiting for the pulled arrays), with MXNET_KVSTORE_FUSION_BYTES at its default (the small
   allreduces fuse into one buffer) and at 0 (one collective per key), against MPI and gloo
   doing 200 separate 4 KB allreduces, and one allreduce of the same 800 KB (what fusion buys
   at best).

The frameworks take turns: every round runs each of them in its own job (ours, MPI, gloo, in
reverse order every other round, --rounds), so a drifting host skews them alike. The ranks of
every job share this machine (mpirun --oversubscribe --bind-to none; 4 ranks on 2 cores are
oversubscribed), every job gets OMP_NUM_THREADS=max(1, cores // ranks), and MPI jobs get
OMPI_MCA_btl_vader_single_copy_mechanism=none (as tests/python/test_kvstore_dist.py: Linux CMA
needs ptrace rights that containers often lack; ours runs over the same MPI, so both get the
same shared-memory transport). The load average is printed before and after: other
processes on the machine show up as noise in every column (--max-load waits for a quieter
machine before each job).

    python benchmark/python/kvstore_allreduce.py --quick          # 2 ranks, 2 sizes, seconds
    python benchmark/python/kvstore_allreduce.py                  # the full tables (~4 min)
    python benchmark/python/kvstore_allreduce.py --ranks 2 --rounds 1 --frameworks ours,mpi
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_procs import wait_quiet  # noqa: E402  (stdlib only)

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
C_SOURCE = os.path.join(REPO, "benchmark", "c", "mpi_allreduce.c")
TORCH_PY = "/usr/bin/python3"

SIZES = [1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
QUICK_SIZES = [16 << 10, 1 << 20]
FRAMEWORKS = ("ours", "mpi", "gloo")
LABELS = {"ours": "ours", "mpi": "MPI", "gloo": "gloo"}


def ops_for(nbytes):
    """Ops per timed repeat: about 16 MB moved, at least 1, at most 50."""
    return max(1, min(50, (16 << 20) // nbytes))


def human(nbytes):
    for unit, div in (("MB", 1 << 20), ("KB", 1 << 10)):
        if nbytes >= div and nbytes % div == 0:
            return "%d %s" % (nbytes // div, unit)
    return "%d B" % nbytes


# ----------------------------------------------------------------------------------------
# Workers: each prints one JSON line per case on rank 0:
#   {"bytes": B, "keys": K, "ops": OPS, "seconds": [seconds per op of each timed repeat]}

def worker_ours(spec):
    """Under mpirun: every rank runs this; the kvstore finds its rank from MPI."""
    import mxnet as mx
    kv = mx.kv.create("dist_sync")
    rank = kv.rank
    total = kv.num_workers * (kv.num_workers + 1) // 2  # the sum of every rank's rank + 1
    for ci, case in enumerate(spec["cases"]):
        nbytes, keys, ops = case["bytes"], case["keys"], case["ops"]
        count = nbytes // 4
        if keys == 1:
            key = "k%d" % ci
            kv.init(key, mx.nd.zeros((count,)))
            arr = mx.nd.ones((count,)) * (rank + 1)
            kv.pushpull(key, arr)  # checked once; the timed sums then grow in place
            assert (arr.asnumpy() == total).all(), "wrong sum for %d bytes" % nbytes

            def step():
                for _ in range(ops):
                    kv.pushpull(key, arr)
                    arr.wait_to_read()
        else:  # the fusion case: push every key, then pull every key
            names = ["c%d_%d" % (ci, k) for k in range(keys)]
            kv.init(names, [mx.nd.zeros((count,)) for _ in names])
            grads = [mx.nd.ones((count,)) * (rank + 1) for _ in names]
            outs = [mx.nd.zeros((count,)) for _ in names]
            kv.push(names, grads)
            kv.pull(names, out=outs)
            assert all((o.asnumpy() == total).all() for o in outs), "wrong fused sums"

            def step():
                for _ in range(ops):
                    kv.push(names, grads)
                    kv.pull(names, out=outs)
                    for o in outs:
                        o.wait_to_read()
        seconds = []
        for r in range(-spec["warmup"], spec["repeats"]):
            kv._barrier()
            t0 = time.perf_counter()
            step()
            t = (time.perf_counter() - t0) / ops
            if r >= 0:
                seconds.append(t)
        rec = {"bytes": nbytes, "keys": keys, "ops": ops, "seconds": seconds}
        if rank == 0:
            print(json.dumps(rec), flush=True)
    kv._barrier()


def _gloo_rank(rank, world, port, spec, queue):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    for case in spec["cases"]:
        nbytes, keys, ops = case["bytes"], case["keys"], case["ops"]
        tensors = [torch.full((nbytes // 4,), float(rank + 1)) for _ in range(keys)]
        seconds = []
        for r in range(-spec["warmup"], spec["repeats"]):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(ops):
                for t in tensors:
                    dist.all_reduce(t)
            t = (time.perf_counter() - t0) / ops
            if r >= 0:
                seconds.append(t)
        if rank == 0:
            queue.put({"bytes": nbytes, "keys": keys, "ops": ops, "seconds": seconds})
    dist.barrier()
    dist.destroy_process_group()


def worker_gloo(spec):
    """In /usr/bin/python3: starts spec['ranks'] processes with torch.multiprocessing."""
    import torch.multiprocessing as tmp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = tmp.get_context("spawn")
    queue = ctx.SimpleQueue()
    procs = [ctx.Process(target=_gloo_rank, args=(r, spec["ranks"], port, spec, queue))
             for r in range(spec["ranks"])]
    for p in procs:
        p.start()
    for _ in spec["cases"]:
        print(json.dumps(queue.get()), flush=True)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit("gloo rank exited with %s" % p.exitcode)


# ----------------------------------------------------------------------------------------
# Driver

def mpi_env(ranks, extra=None):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                "OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // ranks))})
    for k in [k for k in env if k.startswith(("MXNET_KVSTORE_FUSION", "OMPI_MCA_mpi_yield"))]:
        del env[k]
    env.update(extra or {})
    return env


def mpirun_cmd(ranks):
    return ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none"]


def parse_records(stdout):
    recs = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and '"seconds"' in line:
            recs.append(json.loads(line))
    return recs


def run_job(cmd, env, timeout):
    try:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        return None, "exit %d: %s" % (proc.returncode, " | ".join(tail))
    return parse_records(proc.stdout), None


def run_framework(fw, ranks, cases, args, binary, extra_env=None):
    spec = {"cases": cases, "warmup": args.warmup, "repeats": args.repeats, "ranks": ranks}
    env = mpi_env(ranks, extra_env)
    if fw == "ours":
        env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
        cmd = mpirun_cmd(ranks) + [sys.executable, os.path.abspath(__file__),
                                   "--worker", "ours", "--spec", json.dumps(spec)]
    elif fw == "mpi":
        cmd = mpirun_cmd(ranks) + [binary, str(args.warmup), str(args.repeats)] + [
            "%d:%d:%d" % (c["ops"], c["bytes"], c["keys"]) for c in cases]
    else:
        env.pop("PYTHONPATH", None)
        cmd = [TORCH_PY, os.path.abspath(__file__), "--worker", "gloo", "--spec", json.dumps(spec)]
    return run_job(cmd, env, args.timeout)


def availability(frameworks, tmpdir):
    """{framework: None if usable else the reason}, and the compiled MPI program."""
    missing, binary = {}, None
    have_mpirun = shutil.which("mpirun") is not None
    for fw in frameworks:
        missing[fw] = None
        if fw in ("ours", "mpi") and not have_mpirun:
            missing[fw] = "MISSING: mpirun not found (apt-get install openmpi-bin)"
    if "mpi" in frameworks and missing["mpi"] is None:
        mpicc = shutil.which("mpicc")
        if mpicc is None:
            missing["mpi"] = "MISSING: mpicc not found (apt-get install libopenmpi-dev)"
        else:
            binary = os.path.join(tmpdir, "mpi_allreduce")
            proc = subprocess.run([mpicc, "-O2", "-o", binary, C_SOURCE], capture_output=True,
                                  text=True)
            if proc.returncode != 0:
                missing["mpi"] = "MISSING: mpicc failed: %s" % proc.stderr.strip()[-200:]
    if "gloo" in frameworks:
        probe = subprocess.run([TORCH_PY, "-c", "import torch.distributed as d; "
                                "assert d.is_available() and d.is_gloo_available()"],
                               capture_output=True, text=True) if os.path.exists(TORCH_PY) else None
        if probe is None or probe.returncode != 0:
            missing["gloo"] = "MISSING: torch.distributed with gloo in %s (apt-get install " \
                              "python3-torch)" % TORCH_PY
    return missing, binary


def median_or_none(values):
    return statistics.median(values) if values else None


def fmt_s(t):
    if t is None:
        return "-"
    if t < 1e-3:
        return "%.1f us" % (t * 1e6)
    if t < 1:
        return "%.3f ms" % (t * 1e3)
    return "%.3f s" % t


def fmt_ratio(a, b):
    return "%.2f" % (b / a) if a and b else "-"


def loadavg():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "?"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", choices=["ours", "gloo"], help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--ranks", default="2,4", help="rank counts, comma-separated (default 2,4)")
    p.add_argument("--sizes", default=None,
                   help="bytes per key, comma-separated (default 1 KB .. 64 MB; K and M suffixes)")
    p.add_argument("--frameworks", default="ours,mpi,gloo", help="of ours,mpi,gloo")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per round (default 9)")
    p.add_argument("--warmup", type=int, default=None, help="untimed repeats first (default 2)")
    p.add_argument("--rounds", type=int, default=None, help="rounds of every framework (default 3)")
    p.add_argument("--keys", type=int, default=200, help="keys of the fusion case (0: skip it)")
    p.add_argument("--key-bytes", type=int, default=4096, help="bytes per key of the fusion case")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 2 ranks, 16 KB and 1 MB, 1 round of 2 repeats after 1 "
                        "warm-up, 20 fusion keys")
    p.add_argument("--timeout", type=int, default=600, help="seconds per job")
    p.add_argument("--max-load", type=float, default=0,
                   help="before each job, wait until the load average is below this")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args(argv)

    if args.worker:
        spec = json.loads(args.spec)
        (worker_ours if args.worker == "ours" else worker_gloo)(spec)
        return 0

    def parse_size(text):
        text = text.strip().upper().rstrip("B")
        mult = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
        return int(text.rstrip("KM")) * mult

    if args.quick:
        ranks = [2] if args.ranks == "2,4" else [int(r) for r in args.ranks.split(",")]
        sizes = QUICK_SIZES
        args.repeats = args.repeats or 2
        args.warmup = 1 if args.warmup is None else args.warmup
        args.rounds = args.rounds or 1
        args.keys = min(args.keys, 20)
    else:
        ranks = [int(r) for r in args.ranks.split(",")]
        sizes = SIZES
        args.repeats = args.repeats or 9
        args.warmup = 2 if args.warmup is None else args.warmup
        args.rounds = args.rounds or 3
    if args.sizes:
        sizes = [parse_size(s) for s in args.sizes.split(",")]
    frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    for fw in frameworks:
        if fw not in FRAMEWORKS:
            p.error("unknown framework %s (choose from %s)" % (fw, ",".join(FRAMEWORKS)))

    tmpdir = tempfile.mkdtemp(prefix="kvstore_allreduce_")
    try:
        missing, binary = availability(frameworks, tmpdir)
        print("kvstore allreduce benchmark: ranks %s, %d cores, %d round(s) of %d repeats after "
              "%d warm-up, load average %s" % (",".join(map(str, ranks)), os.cpu_count() or 0,
                                              args.rounds, args.repeats, args.warmup, loadavg()))
        for fw in frameworks:
            if missing[fw]:
                print("%-5s %s" % (fw, missing[fw]))
        size_cases = [{"bytes": s, "keys": 1, "ops": ops_for(s)} for s in sizes]
        fusion_cases = []
        if args.keys:
            fused = args.keys * args.key_bytes
            fusion_cases = [{"bytes": args.key_bytes, "keys": args.keys, "ops": 1},
                            {"bytes": fused, "keys": 1, "ops": 1}]
        # results[n][(fw, variant)][bytes, keys] = [seconds...]
        results = {n: {} for n in ranks}
        errors = []
        jobs = []  # (label key, framework, cases, extra env)
        for fw in frameworks:
            if missing[fw]:
                continue
            if fw == "ours":
                jobs.append((("ours", "sizes"), "ours", size_cases, None))
                if fusion_cases:
                    jobs.append((("ours", "fused"), "ours", fusion_cases[:1], None))
                    jobs.append((("ours", "unfused"), "ours", fusion_cases[:1],
                                 {"MXNET_KVSTORE_FUSION_BYTES": "0"}))
            elif fw == "mpi":
                # Open MPI busy-polls in its blocking calls unless oversubscribed; on a shared
                # machine yielding the core can win, so the peer runs both ways.
                jobs.append((("mpi", "default"), "mpi", size_cases + fusion_cases, None))
                jobs.append((("mpi", "yield"), "mpi", size_cases + fusion_cases,
                             {"OMPI_MCA_mpi_yield_when_idle": "1"}))
            else:
                jobs.append(((fw, "sizes"), fw, size_cases + fusion_cases, None))
        for n in ranks:
            for rnd in range(args.rounds):
                order = jobs if rnd % 2 == 0 else list(reversed(jobs))
                for label, fw, cases, extra in order:
                    wait_quiet(args.max_load)
                    t0 = time.time()
                    recs, err = run_framework(fw, n, cases, args, binary, extra)
                    if err:
                        errors.append("%d ranks, %s %s: %s" % (n, label[0], label[1], err))
                        print("%d ranks, round %d: %s %s FAILED: %s" % (n, rnd + 1, label[0],
                                                                        label[1], err), flush=True)
                        continue
                    print("%d ranks, round %d: %s %s, %.1f s" % (n, rnd + 1, label[0], label[1],
                                                               time.time() - t0), flush=True)
                    for rec in recs:
                        slot = results[n].setdefault(label, {}).setdefault(
                            (rec["bytes"], rec["keys"]), [])
                        slot.extend(rec["seconds"])
        print("load average after: %s" % loadavg())
        summary = report(results, ranks, sizes, frameworks, missing, args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"summary": summary, "errors": errors, "frameworks": frameworks,
                           "missing": missing, "rounds": args.rounds, "repeats": args.repeats,
                           "warmup": args.warmup}, f, indent=1)
        return 1 if errors else 0
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def report(results, ranks, sizes, frameworks, missing, args):
    summary = {}
    shown = [fw for fw in FRAMEWORKS if fw in frameworks]
    for n in ranks:
        res = results[n]

        def med(fw, variant, nbytes, keys=1):
            if fw == "mpi":  # the faster of its two settings
                both = [median_or_none(res.get(("mpi", v), {}).get((nbytes, keys), []))
                        for v in ("default", "yield")]
                both = [t for t in both if t is not None]
                return min(both) if both else None
            return median_or_none(res.get((fw, variant), {}).get((nbytes, keys), []))

        def mpi_setting(nbytes, keys=1):
            b, y = [median_or_none(res.get(("mpi", v), {}).get((nbytes, keys), []))
                    for v in ("default", "yield")]
            return None if b is None or y is None else ("default" if b <= y else "yield")

        print()
        print("### Allreduce, float32 sum, %d ranks (seconds per op: median of %d repeats x %d "
              "round(s) after %d warm-up; GB/s: algorithm bandwidth, bytes / time)"
              % (n, args.repeats, args.rounds, args.warmup))
        print()
        head = ["size"]
        for fw in shown:
            head += ["%s s/op" % LABELS[fw], "%s GB/s" % LABELS[fw]]
        head += ["ours/%s" % LABELS[fw] for fw in shown if fw != "ours"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        rows = {}
        for s in sizes:
            cells = [human(s)]
            row = {}
            for fw in shown:
                t = None if missing[fw] else med(fw, "sizes", s)
                row[fw] = t
                cells += [fmt_s(t), "%.3f" % (s / t / 1e9) if t else "-"]
            for fw in shown:
                if fw != "ours":
                    cells.append(fmt_ratio(row.get("ours"), row[fw]))
            rows[s] = row
            print("| " + " | ".join(cells) + " |")
        summary[n] = {"sizes": {str(s): rows[s] for s in sizes}}
        if "mpi" in shown and not missing["mpi"]:
            won = ["%s %s" % (human(s), mpi_setting(s)) for s in sizes]
            print()
            print("MPI: per size the faster of Open MPI's default (default: busy polling "
                  "unless oversubscribed) and OMPI_MCA_mpi_yield_when_idle=1 (yield): "
                  + ", ".join(won))
            summary[n]["mpi_setting"] = {str(s): mpi_setting(s) for s in sizes}
        if "ours" in shown and "mpi" in shown:
            big = [rows[s]["mpi"] / rows[s]["ours"] for s in sizes
                   if s >= (1 << 20) and rows[s].get("ours") and rows[s].get("mpi")]
            if big:
                print()
                print("ours/MPI at 1 MB and above (goal >= 0.9): min %.2f, median %.2f, max %.2f"
                      % (min(big), statistics.median(big), max(big)))
                summary[n]["ours_over_mpi_1mb_up"] = {"min": min(big), "max": max(big),
                                                      "median": statistics.median(big)}
        if args.keys:
            kb, keys = args.key_bytes, args.keys
            total = kb * keys
            print()
            print("### Fusion: %d keys x %s, push every key then pull every key, %d ranks "
                  "(per step: median of %d repeats x %d round(s))"
                  % (keys, human(kb), n, args.repeats, args.rounds))
            print()
            print("| configuration | s/step | GB/s | ours fused / it (speed) |")
            print("|---|---|---|---|")
            lines = []
            if "ours" in shown:
                lines.append(("ours, MXNET_KVSTORE_FUSION_BYTES default (fused)",
                              None if missing["ours"] else med("ours", "fused", kb, keys)))
                lines.append(("ours, MXNET_KVSTORE_FUSION_BYTES=0 (a collective per key)",
                              None if missing["ours"] else med("ours", "unfused", kb, keys)))
            for fw, name in (("mpi", "MPI_Allreduce"), ("gloo", "gloo all_reduce")):
                if fw in shown:
                    lines.append(("%s, %d x %s(%s)" % (LABELS[fw], keys, name, human(kb)),
                                  None if missing[fw] else med(fw, "sizes", kb, keys)))
                    lines.append(("%s, 1 x %s(%s) (one buffer of the same bytes)"
                                  % (LABELS[fw], name, human(total)),
                                  None if missing[fw] else med(fw, "sizes", total, 1)))
            base = lines[0][1] if lines and lines[0][0].startswith("ours") else None
            for name, t in lines:
                print("| %s | %s | %s | %s |" % (name, fmt_s(t),
                                                  "%.3f" % (total / t / 1e9) if t else "-",
                                                  fmt_ratio(base, t) if base else "-"))
            summary[n]["fusion"] = {name: t for name, t in lines}
    return summary


if __name__ == "__main__":
    sys.exit(main())
