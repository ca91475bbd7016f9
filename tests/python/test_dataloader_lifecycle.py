"""DataLoader worker lifecycle: dropping an iterator or a loader mid-epoch, dead workers, leaks.

Each scenario runs in a fresh interpreter with a hard timeout, so a hang fails the test in
seconds instead of stalling the suite.
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, timeout=60):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as err:
        pytest.fail("hung for %d s:\n%s" % (timeout, err.stdout))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_peeking_one_batch_then_dropping_everything_does_not_hang():
    # The sequence a new user types in a notebook, repeated so an intermittent hang shows.
    out = _run("""
        import numpy as np
        from mxnet.gluon.data import DataLoader
        for _ in range(8):
            loader = DataLoader(np.random.rand(999, 2000), batch_size=8, num_workers=4)
            it = iter(loader)
            batch = next(it)
            assert batch.shape == (8, 2000)
            del it
            del loader
        print("done")
    """)
    assert "done" in out


def test_break_out_of_an_epoch_then_the_next_epoch_is_whole():
    out = _run("""
        import numpy as np
        from mxnet.gluon.data import DataLoader
        data = np.arange(400, dtype=np.float32).reshape(100, 4)
        loader = DataLoader(data, batch_size=10, num_workers=3)
        for i, batch in enumerate(loader):
            if i == 2:
                break
        firsts = [b[0, 0].asscalar() for b in loader]
        assert firsts == [40.0 * k for k in range(10)], firsts
        print("done")
    """)
    assert "done" in out


def test_hundred_rounds_leak_no_fds_processes_or_shared_memory():
    out = _run("""
        import gc, os
        import numpy as np
        from mxnet.gluon.data import DataLoader

        def fds():
            return len(os.listdir("/proc/self/fd"))

        def children():
            me = str(os.getpid())
            n = 0
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    try:
                        with open("/proc/%s/stat" % pid) as f:
                            if f.read().rsplit(")", 1)[1].split()[1] == me:
                                n += 1
                    except OSError:
                        pass
            return n

        def shm():
            return len(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else 0

        data = np.random.rand(64, 16).astype(np.float32)
        # One warm-up round so lazily opened files (libraries, /dev/urandom) are counted.
        next(iter(DataLoader(data, batch_size=8, num_workers=2)))
        gc.collect()
        base = (fds(), children(), shm())
        for _ in range(100):
            loader = DataLoader(data, batch_size=8, num_workers=2)
            it = iter(loader)
            next(it)
            del it, loader
        gc.collect()
        after = (fds(), children(), shm())
        assert after == base, (base, after)
        print("done")
    """, timeout=120)
    assert "done" in out


def test_killed_worker_is_an_error_naming_it():
    out = _run("""
        import os, signal, time
        import numpy as np
        from mxnet.gluon.data import DataLoader, Dataset

        class Slow(Dataset):
            def __len__(self):
                return 40
            def __getitem__(self, i):
                time.sleep(0.05)
                return np.full((2,), i, dtype=np.float32)

        loader = DataLoader(Slow(), batch_size=4, num_workers=2, timeout=30)
        it = iter(loader)
        next(it)
        victim = loader._pool._procs[1]
        os.kill(victim.pid, signal.SIGKILL)
        victim.join(5)
        try:
            for _ in it:
                pass
        except RuntimeError as err:
            assert "worker 1" in str(err) and str(victim.pid) in str(err), str(err)
            print("raised:", err)
        else:
            raise AssertionError("no error after a worker was killed")
    """)
    assert "raised:" in out


def test_worker_exiting_by_itself_is_an_error():
    out = _run("""
        import os
        import numpy as np
        from mxnet.gluon.data import DataLoader, Dataset

        class Exits(Dataset):
            def __len__(self):
                return 16
            def __getitem__(self, i):
                if i == 9:
                    os._exit(3)
                return np.zeros((2,), dtype=np.float32)

        try:
            list(DataLoader(Exits(), batch_size=4, num_workers=2, timeout=30))
        except RuntimeError as err:
            assert "exited unexpectedly" in str(err), str(err)
            print("raised:", err)
    """)
    assert "raised:" in out
