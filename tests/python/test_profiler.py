"""mx.profiler: trace contents, modes, pause/resume, aggregates, autostart, the report command."""
import ctypes
import json
import os
import subprocess
import sys

import pytest

import mxnet as mx
from mxnet import profiler
from mxnet.base import _LIB, check_call

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _events(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def _api_call(n=1):
    """A cheap C API call that does real work (n times)."""
    for _ in range(n):
        check_call(_LIB.MXStorageEmptyCache(ctypes.c_int(1), ctypes.c_int(0)))


def _configure(tmp_path, name, **kwargs):
    path = str(tmp_path / name)
    kwargs.setdefault("continuous_dump", False)
    profiler.set_config(filename=path, **kwargs)
    return path


def _finish_run():
    profiler.set_state("stop")
    profiler.dump(finished=True)


def test_trace_is_valid_json_with_device_metadata(tmp_path):
    path = _configure(tmp_path, "basic.json", profile_all=True)
    profiler.set_state("run")
    _api_call(3)
    _finish_run()
    with open(path) as f:
        trace = json.load(f)
    assert trace["displayTimeUnit"] == "ms"
    events = trace["traceEvents"]
    meta = [e for e in events if e["ph"] == "M"]
    assert meta[0] == {"ph": "M", "args": {"name": "cpu/0"}, "pid": 0, "name": "process_name"}
    names = [e["args"]["name"] for e in meta]
    assert "cpu pinned/" in names and "cpu shared/" in names and "MXNET_C_API" in names
    for e in events:
        if e["ph"] != "M":
            assert list(e)[:4] == ["name", "cat", "ph", "ts"] and list(e)[-2:] == ["pid", "tid"]


def test_api_calls_exact_count_and_sane_timestamps(tmp_path):
    path = _configure(tmp_path, "api.json", profile_api=True, profile_memory=False, profile_imperative=False)
    profiler.set_state("run")
    _api_call(4)
    _finish_run()
    events = _events(path)
    begins = [e for e in events if e["name"] == "MXStorageEmptyCache" and e["ph"] == "b"]
    ends = [e for e in events if e["name"] == "MXStorageEmptyCache" and e["ph"] == "e"]
    assert len(begins) == 4 and len(ends) == 4
    for b, e in zip(begins, ends):
        assert b["cat"] == "MXNET_C_API" and e["ts"] >= b["ts"] and b["id"] == e["id"]
    # consecutive calls on one thread do not overlap
    for prev_end, next_begin in zip(ends, begins[1:]):
        assert next_begin["ts"] >= prev_end["ts"]
    counters = [e for e in events if e["ph"] == "C" and e["name"] == "MXNet C API Calls"]
    values = [e["args"]["MXNet C API Calls"] for e in counters]
    assert values == sorted(values) and len(values) >= 4
    conc = [e["args"]["MXNet C API Concurrency"] for e in events if e["name"] == "MXNet C API Concurrency"]
    assert conc and all(v >= 0 for v in conc)


def test_mode_bits_filter_categories(tmp_path):
    path = _configure(tmp_path, "modes.json", profile_api=False, profile_memory=False, profile_imperative=False,
                      profile_symbolic=False)
    profiler.set_state("run")
    _api_call(2)
    _finish_run()
    cats = {e.get("cat") for e in _events(path) if e["ph"] != "M"}
    assert "MXNET_C_API" not in cats and "Device Storage" not in cats and "operator" not in cats


def test_user_objects_counters_markers_frames(tmp_path):
    path = _configure(tmp_path, "user.json", profile_api=False, aggregate_stats=True)
    domain = profiler.Domain("my_domain")
    counter = domain.new_counter("my_counter", 10)
    task = domain.new_task("my_task")
    frame = domain.new_frame("my_frame")
    event = profiler.Event("my_event")
    profiler.set_state("run")
    counter.set_value(5)
    counter += 3
    counter -= 1
    counter.increment(10)
    counter.decrement()
    task.start(); frame.start(); event.start()
    profiler.Marker(domain, "my_marker").mark("global")
    domain.new_marker("thread_marker").mark(scope="thread")
    event.stop(); frame.stop(); task.stop()
    with pytest.raises(mx.MXNetError):
        profiler.Marker(domain, "bad").mark("galaxy")
    profiler.set_state("stop")
    stats = json.loads(profiler.dumps(format="json", reset=True))
    profiler.dump(finished=True)
    events = _events(path)
    values = [e["args"]["my_counter"] for e in events if e["ph"] == "C" and e["name"] == "my_counter"]
    assert values == [5, 8, 7, 17, 16]  # the value 10 was set before the run: not recorded
    mk = [e for e in events if e["name"] == "my_marker"]
    assert len(mk) == 1 and mk[0]["ph"] == "n" and mk[0]["s"] == "g" and mk[0]["cat"] == "my_domain,instant_marker"
    assert [e["s"] for e in events if e["name"] == "thread_marker"] == ["t"]
    assert [e["ph"] for e in events if e["name"] == "my_task"] == ["b", "e"]
    assert [e["ph"] for e in events if e["name"] == "my_frame"] == ["(", ")"]
    assert [e["ph"] for e in events if e["name"] == "my_event"] == ["B", "E"]
    ev = [e for e in events if e["name"] == "my_event"]
    tk = [e for e in events if e["name"] == "my_task"]
    assert tk[0]["ts"] <= ev[0]["ts"] <= ev[1]["ts"] <= tk[1]["ts"]  # nesting on one thread
    assert stats["Time"]["my_domain"]["my_task"]["Count"] == 1
    assert stats["Time"]["my_domain"]["my_counter"]["Count"] == 5
    assert stats["Time"]["my_domain"]["my_counter"]["Max"] == pytest.approx(0.017)
    assert stats["Unit"] == {"Time": "ms", "Memory": "kB"}


def test_pause_resume_drop_events_in_between(tmp_path):
    path = _configure(tmp_path, "pause.json", profile_api=True)
    profiler.set_state("run")
    ev = profiler.Event("before")
    ev.start(); ev.stop()
    profiler.pause()
    _api_call(3)
    e2 = profiler.Event("during")
    e2.start(); e2.stop()
    profiler.resume()
    e3 = profiler.Event("after")
    e3.start(); e3.stop()
    _finish_run()
    names = [e["name"] for e in _events(path)]
    assert "before" in names and "after" in names and "during" not in names
    assert "MXStorageEmptyCache" not in names


def test_aggregate_counts_equal_calls_and_table(tmp_path):
    _configure(tmp_path, "agg.json", profile_api=True, aggregate_stats=True)
    profiler.set_state("run")
    _api_call(6)
    profiler.set_state("stop")
    stats = json.loads(profiler.dumps(format="json"))
    assert stats["Time"]["MXNET_C_API"]["MXStorageEmptyCache"]["Count"] == 6
    table = profiler.dumps(sort_by="count", ascending=True, reset=True)
    assert table.startswith("\nProfile Statistics:\n\tNote the difference in units for different entries.\n")
    assert "MXNET_C_API\n=================\n" in table
    row = [l for l in table.splitlines() if l.startswith("MXStorageEmptyCache")][0]
    assert row.split()[1] == "6"
    assert "MXStorageEmptyCache" not in profiler.dumps()  # reset cleared the stats
    with pytest.raises(ValueError):
        profiler.dumps(sort_by="median")
    profiler.dump(finished=True)


def test_bad_config_is_a_clear_error():
    with pytest.raises(mx.MXNetError, match="profile_nothing"):
        profiler.set_config(profile_nothing=True)
    with pytest.raises(mx.MXNetError, match="True or False"):
        profiler.set_config(aggregate_stats="perhaps")
    with pytest.raises(ValueError):
        profiler.set_state("walk")


def test_continuous_dump_writes_periodically_and_closes_once(tmp_path):
    import time
    path = str(tmp_path / "periodic.json")
    profiler.set_config(filename=path, continuous_dump=True, dump_period=0.05, profile_api=False)
    profiler.set_state("run")
    ev = profiler.Event("early")
    ev.start(); ev.stop()
    deadline = time.time() + 10
    while not (os.path.exists(path) and "early" in open(path).read()) and time.time() < deadline:
        time.sleep(0.02)
    partial = open(path).read()
    assert '"traceEvents"' in partial and "displayTimeUnit" not in partial  # written, not closed yet
    ev2 = profiler.Event("late")
    ev2.start(); ev2.stop()
    _finish_run()
    names = [e["name"] for e in _events(path)]
    assert names.count("early") == 2 and names.count("late") == 2  # B and E each, no duplicates


def test_set_config_deletes_existing_file(tmp_path):
    path = tmp_path / "stale.json"
    path.write_text("old")
    profiler.set_config(filename=str(path))
    assert not path.exists()


def test_scope_records_a_named_block(tmp_path):
    path = _configure(tmp_path, "scope.json", profile_api=False)
    profiler.set_state("run")
    with profiler.scope("outer"):
        with profiler.scope("inner", append_mode=True) as name:
            assert name == "outer:inner:"
    _finish_run()
    names = [e["name"] for e in _events(path) if e["ph"] == "B"]
    assert names.count("outer:") == 1 and names.count("outer:inner:") == 1


def test_operators_from_the_engine(tmp_path):
    nd = getattr(mx, "nd", None)
    if nd is None or not hasattr(nd, "exp") or not hasattr(nd, "sqrt"):
        pytest.skip("mx.nd is not available in this build")
    path = _configure(tmp_path, "ops.json", profile_imperative=True, profile_api=False, profile_memory=False,
                      aggregate_stats=True)
    a = nd.ones((4, 4))
    nd.waitall()
    profiler.set_state("run")
    outs = [nd.exp(a) for _ in range(3)] + [nd.sqrt(a) for _ in range(2)]
    nd.waitall()
    profiler.set_state("stop")
    nd.exp(a).wait_to_read()  # after stop: not recorded
    stats = json.loads(profiler.dumps(format="json", reset=True))
    profiler.dump(finished=True)
    ops = [e for e in _events(path) if e.get("cat") == "operator"]
    bookkeeping = ("DeleteVariable", "WaitForVar")  # engine ops MXNet's traces show too
    counts = {}
    for e in ops:
        if e["name"] not in bookkeeping:
            counts[(e["name"], e["ph"])] = counts.get((e["name"], e["ph"]), 0) + 1
    assert counts == {("exp", "B"): 3, ("exp", "E"): 3, ("sqrt", "B"): 2, ("sqrt", "E"): 2}
    open_ops = {}
    for e in ops:  # B/E nest properly on each (pid, tid)
        stack = open_ops.setdefault((e["pid"], e["tid"]), [])
        if e["ph"] == "B":
            stack.append(e)
        else:
            b = stack.pop()
            assert b["name"] == e["name"] and e["ts"] >= b["ts"]
    assert stats["Time"]["operator"]["exp"]["Count"] == 3
    assert stats["Time"]["operator"]["sqrt"]["Count"] == 2
    del outs


def test_autostart_writes_profile_json_in_cwd(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXNET_")}
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    if "MXNET_LIBRARY_PATH" in os.environ:
        env["MXNET_LIBRARY_PATH"] = os.environ["MXNET_LIBRARY_PATH"]
    env["MXNET_PROFILER_AUTOSTART"] = "1"
    code = ("import ctypes, mxnet as mx\n"
            "from mxnet.base import _LIB\n"
            "for _ in range(3): _LIB.MXStorageEmptyCache(ctypes.c_int(1), ctypes.c_int(0))\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    events = _events(str(tmp_path / "profile.json"))
    assert len([e for e in events if e["name"] == "MXStorageEmptyCache" and e["ph"] == "b"]) == 3
    # MXNET_PROFILER_MODE=2 (imperative only): no API events
    env["MXNET_PROFILER_MODE"] = "2"
    sub = tmp_path / "mode2"
    sub.mkdir()
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(sub), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not [e for e in _events(str(sub / "profile.json")) if e.get("cat") == "MXNET_C_API"]


def test_autostart_without_notify_shutdown_still_writes_at_exit(tmp_path):
    """A program that loads the library and exits without MXNotifyShutdown (as C++ apps do)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXNET_")}
    env["MXNET_PROFILER_AUTOSTART"] = "1"
    code = ("import ctypes, sys\n"
            "lib = ctypes.CDLL(sys.argv[1], ctypes.RTLD_LOCAL)\n"
            "assert lib.MXStorageEmptyCache(ctypes.c_int(1), ctypes.c_int(0)) == 0\n")
    proc = subprocess.run([sys.executable, "-c", code, mx.base._LIB_PATH], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    events = _events(str(tmp_path / "profile.json"))
    assert [e["ph"] for e in events if e["name"] == "MXStorageEmptyCache"] == ["b", "e"]


def _fake_trace(path):
    events = [{"ph": "M", "args": {"name": "cpu/0"}, "pid": 0, "name": "process_name"}]
    t = 0
    for name, dur, n in (("conv", 50, 2), ("relu", 5, 4), ("fc<x>", 20, 1)):
        for _ in range(n):
            events.append({"name": name, "cat": "operator", "ph": "B", "ts": t, "pid": 0, "tid": 1})
            events.append({"name": name, "cat": "operator", "ph": "E", "ts": t + dur, "pid": 0, "tid": 1})
            t += 100
    with open(path, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def test_report_command_prints_table_and_writes_html(tmp_path):
    trace = str(tmp_path / "t.json")
    out = str(tmp_path / "r.html")
    _fake_trace(trace)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    proc = subprocess.run([sys.executable, "-m", "mxnet.profiler", "report", trace, "--html", out, "--top", "2"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[0] == "Operator"
    assert lines[1].split()[:3] == ["conv", "2", "0.1000"]   # 2 x 50 us
    assert lines[2].split()[:3] == ["fc<x>", "1", "0.0200"]  # 20 us beats relu's 4 x 5 us
    assert not any(l.startswith("relu") for l in lines)      # --top 2
    with open(out) as f:
        page = f.read()
    assert "<svg" in page and page.count("<rect") == 2 and "fc&lt;x&gt;" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")  # self-contained
