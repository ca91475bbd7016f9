#!/usr/bin/env python3
"""Training benchmark: the main job's LeNet on Fashion-MNIST, and ResNet-50 at batch 32.

LeNet (example/gluon/fashion_mnist.py): conv5x5(20)-relu-maxpool2 -> conv5x5(50)-relu-
maxpool2 -> dense(500)-relu -> dense(10), Xavier init, softmax cross-entropy, SGD lr 0.01
momentum 0.9, batch 64, shuffled each epoch, the loss read back every batch as the main job
does. Every framework gets the same input: the idx files decoded and normalised once with
numpy, so the figures are the training step (forward, backward, update), not a data
pipeline. Reported: seconds for the timed batches (and per full epoch of 938 batches when
that is what ran), samples/s, and the test accuracy afterwards (all 10,000 test images).

ResNet-50 (v1; torchvision's resnet50 for torch): training images/s at batch 32 on random
data, the seed's training table on this machine: the median of the timed steps after 3 warm-up
steps (--resnet-warmup), since pooled allocators page-fault fresh blocks in for a few steps.

Each framework runs in its own process. Ours runs out of the box (no settings). The peers
get their best thread settings on this machine: each candidate setting (stated in the
output) runs a short probe in its own process, and the fastest one does the measured run.
  ours      this runtime, hybridized static_alloc/shape like 1.9.1 (one CachedOp call per
            forward, its gradient graph planned once).
  mxnet191  Apache MXNet 1.9.1 (benchmark/.peers/mxnet191), hybridized static_alloc/shape.
  torch     Debian python3-torch via /usr/bin/python3, eager.
The measured LeNet runs take the frameworks in turn; --rounds N repeats that N times,
reversing the order every other round, and reports medians (a drifting host then skews every
framework alike). ResNet-50 goes further: every framework's worker holds its warmed-up
network and the timed steps go round them one step at a time (reversed every other step),
the others idle meanwhile, and "ours / it" is the median over turns of the two step times in
the same turn (--resnet-isolated times each framework's steps inside its measured run).
Install the peers with: bash benchmark/python/setup_peers.sh

  python benchmark/python/train_lenet.py --limit 100 --resnet-steps 2 --resnet-warmup 1  # quick
  python benchmark/python/train_lenet.py                                # 1 epoch + ResNet
  python benchmark/python/train_lenet.py --limit 0 --resnet-steps 3 --rounds 3 \
      --frameworks ours,mxnet191                                        # ResNet, alternating
"""
import argparse
import gzip
import json
import os
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmark_score as bs  # noqa: E402  (stdlib-only helpers shared with the scorer)

MEAN, STD = 0.2860, 0.3530  # as in example/gluon/fashion_mnist.py
DATA_DIRS = [os.path.join(os.environ.get("MXNET_HOME", os.path.expanduser("~/.mxnet")),
                          "datasets", "fashion-mnist"), "/usr/share/datasets/fashion-mnist"]

# Thread settings to probe per peer: (label, environment overrides, torch threads or None).
# OpenBLAS is listed because Debian's torch links the pthread OpenBLAS, whose threads fight
# torch's OpenMP pool unless one of them is kept to a single thread.
PEER_SETTINGS = {
    "mxnet191": [
        ("OMP_NUM_THREADS=2", {"OMP_NUM_THREADS": "2"}, None),
        ("OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1"}, None),
        ("defaults", {}, None),
    ],
    "torch": [
        ("defaults", {}, None),
        ("torch 2 threads, OPENBLAS_NUM_THREADS=1",
         {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "1"}, 2),
        ("torch 1 thread, OPENBLAS_NUM_THREADS=1",
         {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}, 1),
        ("torch 2 threads, OPENBLAS_NUM_THREADS=2",
         {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}, 2),
    ],
}


def read_idx(path):
    """An idx(.gz) file as a numpy array."""
    import numpy as np
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_fashion_mnist(data_dir):
    """(train_x, train_y, test_x, test_y): normalised float32 NCHW images, int labels."""
    import numpy as np
    dirs = [data_dir] if data_dir else DATA_DIRS
    names = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte",
             "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]
    for d in dirs:
        paths = []
        for n in names:
            for cand in (os.path.join(d, n + ".gz"), os.path.join(d, n)):
                if os.path.exists(cand):
                    paths.append(cand)
                    break
        if len(paths) == 4:
            arrays = [read_idx(p) for p in paths]
            imgs = [((a.astype(np.float32) / 255.0 - MEAN) / STD)[:, None, :, :]
                    for a in (arrays[0], arrays[2])]
            return imgs[0], arrays[1].astype(np.int64), imgs[1], arrays[3].astype(np.int64)
    raise IOError("Fashion-MNIST idx files not found in %s (apt-get install "
                  "dataset-fashion-mnist, or put them in $MXNET_HOME/datasets/fashion-mnist)"
                  % " or ".join(dirs))


def batches_of(spec, train_x):
    """The shuffled batch index lists that every framework trains on (same seed)."""
    import numpy as np
    rng = np.random.RandomState(spec["seed"])
    n, bsz, limit = len(train_x), spec["batch_size"], spec["batches"]
    out = []
    while len(out) < limit:
        perm = rng.permutation(n)
        out.extend(perm[i:i + bsz] for i in range(0, n, bsz))
    return out[:limit]


# ----------------------------------------------------------------------------------------
# Workers

def worker_mxnet(spec, flavour):
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    mx.random.seed(spec["seed"])
    np.random.seed(spec["seed"])
    info = {"version": mx.__version__, "setting": spec.get("setting", "out of the box")}
    if flavour == "ours":
        info["runtime"] = dict(mx.runtime.info())
    bs.emit({"info": info})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def trainer_for(net):
        return gluon.Trainer(net.collect_params(), "sgd",
                             {"learning_rate": spec["lr"], "momentum": spec["momentum"]})

    if spec["batches"]:
        train_x, train_y, test_x, test_y = load_fashion_mnist(spec.get("data_dir"))
        net = nn.HybridSequential()
        with net.name_scope():  # the main job's build_net()
            net.add(nn.Conv2D(20, kernel_size=5, activation="relu"),
                    nn.MaxPool2D(pool_size=2, strides=2),
                    nn.Conv2D(50, kernel_size=5, activation="relu"),
                    nn.MaxPool2D(pool_size=2, strides=2),
                    nn.Flatten(),
                    nn.Dense(500, activation="relu"),
                    nn.Dense(10))
        net.initialize(mx.init.Xavier())
        net.hybridize(static_alloc=True, static_shape=True)
        trainer = trainer_for(net)
        order = batches_of(spec, train_x)
        total_loss = 0.0
        tic = time.perf_counter()
        for idx in order:
            data = mx.nd.array(train_x[idx])
            label = mx.nd.array(train_y[idx])
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(len(idx))
            total_loss += float(loss.sum().asscalar())  # read back every batch, as the job
        seconds = time.perf_counter() - tic
        correct = 0
        for i in range(0, len(test_x), 256):
            out = net(mx.nd.array(test_x[i:i + 256])).asnumpy()
            correct += int((out.argmax(axis=1) == test_y[i:i + 256]).sum())
        bs.emit({"task": "lenet", "batches": len(order), "seconds": seconds,
                 "samples": int(sum(len(i) for i in order)),
                 "mean_loss": total_loss / sum(len(i) for i in order),
                 "test_accuracy": correct / float(len(test_x))})
        bs.log("%s lenet: %.2f s for %d batches" % (flavour, seconds, len(order)))

    if spec["resnet_steps"] and not spec.get("lockstep"):
        resnet_run(spec, mxnet_resnet_step(mx, spec, loss_fn, trainer_for), flavour)
    return lambda: mxnet_resnet_step(mx, spec, loss_fn, trainer_for)


def mxnet_resnet_step(mx, spec, loss_fn, trainer_for):
    """One ResNet-50 (v1) training step on random data, as a function."""
    import numpy as np
    from mxnet import autograd
    from mxnet.gluon.model_zoo import vision
    net = vision.resnet50_v1()
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = trainer_for(net)
    x = mx.nd.random.uniform(shape=(spec["resnet_batch"], 3, 224, 224))
    y = mx.nd.array(np.random.randint(0, 1000, spec["resnet_batch"]))

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        loss.wait_to_read()
        mx.nd.waitall()
    return step


def resnet_run(spec, step, label):
    """Images/s of ResNet-50 training: warm-up steps, then each timed step on its own."""
    import statistics
    for _ in range(spec.get("resnet_warmup", 1)):
        step()
    times = []
    for _ in range(spec["resnet_steps"]):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    rate = spec["resnet_batch"] / statistics.median(times)
    bs.emit({"task": "resnet50", "batch": spec["resnet_batch"], "steps": len(times),
             "images_per_s": rate, "step_seconds": times})
    bs.log("%s resnet50 train: %.2f images/s" % (label, rate))


def worker_torch(spec):
    import numpy as np
    import torch
    import torch.nn as tnn
    if spec.get("torch_threads"):
        torch.set_num_threads(spec["torch_threads"])
    torch.manual_seed(spec["seed"])
    bs.emit({"info": {"version": torch.__version__, "num_threads": torch.get_num_threads(),
                      "setting": spec.get("setting", "defaults")}})
    loss_fn = tnn.CrossEntropyLoss()

    def xavier(m):  # Gluon's Xavier default: uniform, magnitude 3, fan average
        if isinstance(m, (tnn.Conv2d, tnn.Linear)):
            tnn.init.xavier_uniform_(m.weight)
            tnn.init.zeros_(m.bias)

    if spec["batches"]:
        train_x, train_y, test_x, test_y = load_fashion_mnist(spec.get("data_dir"))
        net = tnn.Sequential(tnn.Conv2d(1, 20, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2),
                             tnn.Conv2d(20, 50, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2),
                             tnn.Flatten(), tnn.Linear(800, 500), tnn.ReLU(),
                             tnn.Linear(500, 10))
        net.apply(xavier)
        opt = torch.optim.SGD(net.parameters(), lr=spec["lr"], momentum=spec["momentum"])
        order = batches_of(spec, train_x)
        total_loss = 0.0
        tic = time.perf_counter()
        for idx in order:
            data = torch.from_numpy(train_x[idx])
            label = torch.from_numpy(train_y[idx])
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(data), label)
            loss.backward()
            opt.step()
            total_loss += float(loss.item()) * len(idx)
        seconds = time.perf_counter() - tic
        correct = 0
        with torch.inference_mode():
            for i in range(0, len(test_x), 256):
                out = net(torch.from_numpy(test_x[i:i + 256])).numpy()
                correct += int((out.argmax(axis=1) == test_y[i:i + 256]).sum())
        bs.emit({"task": "lenet", "batches": len(order), "seconds": seconds,
                 "samples": int(sum(len(i) for i in order)),
                 "mean_loss": total_loss / sum(len(i) for i in order),
                 "test_accuracy": correct / float(len(test_x))})
        bs.log("torch lenet: %.2f s for %d batches" % (seconds, len(order)))

    def resnet_step():
        """One ResNet-50 training step on random data, as a function."""
        import torchvision
        net = torchvision.models.resnet50(weights=None)
        opt = torch.optim.SGD(net.parameters(), lr=spec["lr"], momentum=spec["momentum"])
        x = torch.rand(spec["resnet_batch"], 3, 224, 224)
        y = torch.from_numpy(np.random.randint(0, 1000, spec["resnet_batch"]))

        def step():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
        return step

    if spec["resnet_steps"] and not spec.get("lockstep"):
        resnet_run(spec, resnet_step(), "torch")
    return resnet_step


def serve_resnet_steps(make_step):
    """Lockstep ResNet-50: the parent's commands on stdin, one JSON object a line, each
    answered by its records and {"done": true}: prepare {warmup} builds the network and runs
    the warm-up steps, step times one step, unload drops it. Between commands the process
    does nothing, so the framework being timed has the cores."""
    import gc
    bs.emit({"done": True})
    step = None
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["cmd"] == "prepare":
                step = make_step()
                for _ in range(cmd["warmup"]):
                    step()
            elif cmd["cmd"] == "step":
                t0 = time.perf_counter()
                step()
                bs.emit({"seconds": time.perf_counter() - t0})
            elif cmd["cmd"] == "unload":
                step = None
                gc.collect()
            else:
                bs.emit({"error": "unknown command %r" % cmd["cmd"]})
        except Exception as err:
            bs.emit({"error": bs.error_text(err)})
        bs.emit({"done": True})


# ----------------------------------------------------------------------------------------
# The parent

def interpreters(args):
    ours_env = dict(os.environ)  # out of the box: whatever the user has, nothing added
    ours_env["PYTHONPATH"] = os.path.join(bs.ROOT, "python") + (
        os.pathsep + ours_env["PYTHONPATH"] if ours_env.get("PYTHONPATH") else "")
    lib = os.path.join(bs.ROOT, "build", "libmxnet.so")
    if "MXNET_LIBRARY_PATH" not in ours_env and os.path.exists(lib):
        ours_env["MXNET_LIBRARY_PATH"] = lib
    base = dict(os.environ)
    for var in ("PYTHONPATH", "MXNET_LIBRARY_PATH", "VIRTUAL_ENV", "OMP_NUM_THREADS",
                "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        base.pop(var, None)
    # The BLAS kernels our runtime picks on import (see benchmark_score.openblas_coretype),
    # for the peers too.
    core = bs.openblas_coretype()
    if core:
        base["OPENBLAS_CORETYPE"] = core
    return {
        "ours": (args.python or sys.executable, ours_env, "import mxnet", "build the library"),
        "mxnet191": (os.path.join(bs.PEERS, "mxnet191", "bin", "python"), base,
                     "import mxnet; assert mxnet.__version__ == '1.9.1'", bs.SETUP),
        "torch": ("/usr/bin/python3", base, "import torch, torchvision",
                  "apt-get install python3-torch python3-torchvision"),
    }


def probe_settings(fw, py, env, spec, args, entry):
    """The thread setting fw runs with: the fastest in short LeNet probes (one process each)
    when it has several and probing is on, else its first."""
    settings = PEER_SETTINGS.get(fw, [("out of the box", {}, None)])
    if len(settings) == 1 or not args.probe_batches or not args.limit:
        return settings[0]
    best = None
    for setting in settings:
        label, overrides, tthreads = setting
        pspec = dict(spec, batches=args.probe_batches, resnet_steps=0, setting=label,
                     torch_threads=tthreads)
        recs, err = bs.run_worker(py, dict(env, **overrides), fw, pspec, args.timeout, __file__)
        r = pick(recs, "lenet")
        secs = r["seconds"] if r else None
        entry["probes"].append({"setting": label, "seconds": secs, "error": err,
                                "batches": args.probe_batches})
        print("%-9s probe %-45s %s" % (fw, label, "%.2f s / %d batches" % (
            secs, args.probe_batches) if secs else "failed: %s" % err), flush=True)
        if secs and (best is None or secs < best[0]):
            best = (secs, setting)
    return best[1] if best else settings[0]


def pick(records, task):
    """The record of task; over several rounds, one carrying the medians of the timed
    figures (seconds, samples, images/s) of all rounds."""
    import statistics
    found = [r for r in records if r.get("task") == task]
    if len(found) < 2:
        return found[0] if found else None
    merged = dict(found[0], rounds=len(found))
    for field in ("seconds", "images_per_s"):
        if field in merged:
            merged[field] = statistics.median(r[field] for r in found)
    return merged


def per_round(records, task, field, fmt):
    """The field of task in every round, in round order ("-" with a single round)."""
    found = [r for r in records if r.get("task") == task]
    return " / ".join(fmt % r[field] for r in found) if len(found) > 1 else "-"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--limit", type=int, default=938,
                   help="LeNet batches to time (938 = one epoch of 60,000; 0: skip LeNet)")
    p.add_argument("--probe-batches", type=int, default=150,
                   help="LeNet batches per thread-setting probe of a peer (0: no probing, "
                        "the first listed setting)")
    p.add_argument("--resnet-warmup", type=int, default=3,
                   help="untimed ResNet-50 training steps first: a pooling allocator (ours, "
                        "torch's) needs a few steps before every activation block is cached and "
                        "touched; until then fresh blocks page-fault in")
    p.add_argument("--resnet-steps", type=int, default=4,
                   help="timed ResNet-50 training steps after one warm-up (0: skip)")
    p.add_argument("--resnet-batch", type=int, default=32)
    p.add_argument("--frameworks", default="ours,mxnet191,torch")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--resnet-isolated", action="store_true",
                   help="time ResNet-50 inside each framework's measured run, instead of the "
                        "frameworks taking turns step by step")
    bs.add_runner_arguments(p, timeout="seconds per framework process or per request",
                            max_load="before each framework, wait until the load average is "
                                     "below this",
                            rounds="measured runs per framework, taken in turn (reversed every "
                                   "other round); figures are the medians over rounds",
                            settle="ResNet-50 in turns: seconds of pause before each step, so the "
                                   "previous framework's spinning threads have gone to sleep")
    args = p.parse_args(argv)
    if args.worker:
        spec = dict(json.loads(args.spec), lockstep=args.lockstep)
        make_step = worker_torch(spec) if args.worker == "torch" else \
            worker_mxnet(spec, args.worker)
        if args.lockstep:
            serve_resnet_steps(make_step)
        return 0

    spec = {"batches": args.limit, "batch_size": args.batch_size, "lr": 0.01,
            "momentum": 0.9, "seed": 42, "data_dir": args.data_dir,
            "resnet_steps": args.resnet_steps, "resnet_batch": args.resnet_batch,
            "resnet_warmup": max(1, args.resnet_warmup)}
    print("LeNet/Fashion-MNIST: batch %d, %d timed batches; ResNet-50 training: batch %d, "
          "%d timed steps; load average %s" % (
              args.batch_size, args.limit, args.resnet_batch, args.resnet_steps,
              " ".join("%.2f" % v for v in os.getloadavg())), flush=True)
    interp = interpreters(args)
    results = {"spec": spec, "frameworks": {}, "loadavg_start": os.getloadavg(),
               "rounds": args.rounds}
    order = []
    for fw in args.frameworks.split(","):
        py, env, probe, how = interp[fw]
        missing = bs.available(py, env, probe)
        if missing:
            print("%-9s MISSING (%s); install: %s" % (fw, missing, how), flush=True)
            results["frameworks"][fw] = {"missing": missing, "install": how}
            continue
        bs.wait_quiet(args.max_load)
        entry = {"probes": [], "loadavg": os.getloadavg(), "records": [], "errors": []}
        entry["chosen"] = probe_settings(fw, py, env, spec, args, entry)
        entry["setting"] = entry["chosen"][0]
        results["frameworks"][fw] = entry
        order.append(fw)
    # The measured runs go round the frameworks, in reverse order every other round: a host
    # whose speed drifts then slows each framework's figures alike, and the medians over
    # rounds compare like with like.
    lockstep = bool(args.resnet_steps and not args.resnet_isolated)
    for rnd in range(args.rounds if args.limit or not lockstep else 0):
        for fw in (order if rnd % 2 == 0 else order[::-1]):
            py, env, _, _ = interp[fw]
            entry = results["frameworks"][fw]
            label, overrides, tthreads = entry["chosen"]
            wspec = dict(spec, setting=label, torch_threads=tthreads,
                         resnet_steps=0 if lockstep else spec["resnet_steps"])
            bs.wait_quiet(args.max_load)
            print("%-9s running with %s%s ..." % (
                fw, label, " (round %d)" % (rnd + 1) if args.rounds > 1 else ""), flush=True)
            recs, err = bs.run_worker(py, dict(env, **overrides), fw, wspec, args.timeout,
                                      __file__)
            for r in recs:
                r["round"] = rnd
            entry["records"].extend(recs)
            if err:
                entry["errors"].append(err)
                entry["error"] = "; ".join(entry["errors"])
                print("%-9s ERROR: %s" % (fw, err), flush=True)
    if lockstep:
        resnet_in_turns(order, interp, spec, args, results)
    for entry in results["frameworks"].values():
        entry.pop("chosen", None)

    report(results, args)
    return 0


def resnet_in_turns(order, interp, spec, args, results):
    """ResNet-50 training with the frameworks taking turns: every framework's worker builds
    the network and runs its warm-up steps, then the timed steps go round them one step at a
    time (in reverse order every other step) while the others wait idle, so a drifting host
    slows the steps of one turn alike. Rounds repeat this with fresh networks."""
    fws, workers = results["frameworks"], {}

    def ask(fw, cmd):
        return bs.ask_worker(workers, fws, fw, cmd, "resnet50 ")

    for fw in order:
        py, env, _, _ = interp[fw]
        label, overrides, tthreads = fws[fw]["chosen"]
        wspec = dict(spec, batches=0, setting=label, torch_threads=tthreads)
        workers[fw] = bs.LockstepWorker(py, dict(env, **overrides), fw, wspec, args.timeout,
                                        __file__)
        fws[fw]["records"].extend(ask(fw, None) or [])
    for rnd in range(args.rounds):
        bs.wait_quiet(args.max_load)
        live = []
        for fw in order:
            if fw in workers:
                recs = ask(fw, {"cmd": "prepare", "warmup": spec["resnet_warmup"]})
                for r in recs or []:
                    fws[fw]["errors"].append("resnet50: %s" % r.get("error"))
                    fws[fw]["error"] = "; ".join(fws[fw]["errors"])
                if recs == []:
                    live.append(fw)
        print("ResNet-50 training%s: %d steps in turn over %s (load %.2f)" % (
            " round %d" % (rnd + 1) if args.rounds > 1 else "", spec["resnet_steps"],
            ", ".join(live), os.getloadavg()[0]), flush=True)
        times = {fw: [] for fw in live}
        for k in range(spec["resnet_steps"]):
            for fw in (live if k % 2 == 0 else live[::-1]):
                if fw in workers:
                    time.sleep(args.settle)  # the last framework's spinning threads sleep
                    recs = ask(fw, {"cmd": "step"}) or []
                    times[fw].append(next((r["seconds"] for r in recs if "seconds" in r), None))
        for fw in live:
            if fw in workers:
                ask(fw, {"cmd": "unload"})
            done = [t for t in times[fw] if t]
            if done:
                rate = spec["resnet_batch"] / statistics.median(done)
                fws[fw]["records"].append({
                    "task": "resnet50", "batch": spec["resnet_batch"], "steps": len(done),
                    "images_per_s": rate, "step_seconds": times[fw], "lockstep": True,
                    "round": rnd})
                print("  %-9s %.2f images/s" % (fw, rate), flush=True)
    for w in workers.values():
        w.close()


def same_turn_ratio(ours, theirs):
    """Their step time over ours, the median over the turns both finished a step (every
    round pooled), with its range; None unless both ran in turns."""
    pairs = []
    for a in ours:
        b = next((r for r in theirs if r.get("round") == a.get("round")), None)
        if a.get("lockstep") and b and b.get("lockstep"):
            pairs += [y / x for x, y in zip(a["step_seconds"], b["step_seconds"]) if x and y]
    return (statistics.median(pairs), min(pairs), max(pairs)) if pairs else None


def report(results, args):
    fws = results["frameworks"]
    ours = fws.get("ours", {})
    ol, orn = pick(ours.get("records", []), "lenet"), pick(ours.get("records", []), "resnet50")
    rounds_note = "; medians of %d rounds" % args.rounds if args.rounds > 1 else ""
    if args.limit:
        print("\n### LeNet on Fashion-MNIST, batch %d, %d batches%s" % (
            args.batch_size, args.limit, rounds_note))
        print("| framework | setting | seconds | s/epoch (938 batches) | samples/s "
              "| test accuracy | its s / our s | seconds per round |")
        print("|---|---|---:|---:|---:|---:|---:|---|")
        for fw, entry in fws.items():
            if "missing" in entry:
                print("| %s | MISSING: %s | | | | | | |" % (fw, entry["install"]))
                continue
            r = pick(entry.get("records", []), "lenet")
            if not r:
                print("| %s | %s | failed: %s | | | | | |" % (fw, entry.get("setting"),
                                                          entry.get("error")))
                continue
            print("| %s | %s | %.2f | %.1f | %.0f | %.4f | %s | %s |" % (
                fw, entry.get("setting"), r["seconds"], r["seconds"] * 938.0 / r["batches"],
                r["samples"] / r["seconds"], r["test_accuracy"],
                "%.2fx" % (r["seconds"] / ol["seconds"]) if ol else "-",
                per_round(entry["records"], "lenet", "seconds", "%.2f")))
    if args.resnet_steps:
        turns = any(r.get("lockstep") for r in ours.get("records", []))
        print("\n### ResNet-50 training, batch %d (images/s, median of %d steps after %d "
              "warm-up steps%s)%s" % (args.resnet_batch, args.resnet_steps,
                                      results["spec"]["resnet_warmup"],
                                      ", the frameworks taking turns step by step" if turns
                                      else "", rounds_note))
        print("| framework | setting | images/s | ours / it | images/s per round |")
        print("|---|---|---:|---:|---|")
        for fw, entry in fws.items():
            r = pick(entry.get("records", []), "resnet50")
            if r:
                mine = [x for x in ours.get("records", []) if x.get("task") == "resnet50"]
                paired = same_turn_ratio(mine, [x for x in entry["records"]
                                                if x.get("task") == "resnet50"])
                ratio = "-" if not orn else "%.2f" % (
                    paired[0] if paired else orn["images_per_s"] / r["images_per_s"])
                if paired and fw != "ours":
                    ratio += " (steps %.2f-%.2f)" % paired[1:]
                print("| %s | %s | %.2f | %s | %s |" % (
                    fw, entry.get("setting"), r["images_per_s"], ratio,
                    per_round(entry["records"], "resnet50", "images_per_s", "%.2f")))
            else:
                print("| %s | %s | - | - | - |" % (fw, entry.get("install") or
                                                   entry.get("error")))
        if turns:
            print("(ours / it: the median over turns of its step time over ours in the same "
                  "turn, with the range)")
    results["loadavg_end"] = os.getloadavg()
    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, "train_lenet.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("\nJSON: %s" % path)


if __name__ == "__main__":
    sys.exit(main())
