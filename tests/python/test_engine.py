"""mx.engine: per-thread bulk size, and the engine choice validated at import."""
import threading

import pytest

import mxnet as mx
from mxnet import engine


def test_set_bulk_size_returns_previous():
    prev = engine.set_bulk_size(10)
    try:
        assert engine.set_bulk_size(20) == 10
        assert engine.set_bulk_size(0) == 20
    finally:
        engine.set_bulk_size(prev)


def test_bulk_restores_previous_size():
    engine.set_bulk_size(3)
    try:
        with engine.bulk(15):
            assert engine.set_bulk_size(15) == 15
        assert engine.set_bulk_size(3) == 3
        with pytest.raises(RuntimeError):
            with engine.bulk(8):
                raise RuntimeError("inside")
        assert engine.set_bulk_size(3) == 3
    finally:
        engine.set_bulk_size(0)


def test_bulk_size_is_per_thread():
    engine.set_bulk_size(7)
    seen = []
    t = threading.Thread(target=lambda: seen.append(engine.set_bulk_size(0)))
    t.start()
    t.join()
    assert seen == [0]
    assert engine.set_bulk_size(0) == 7


def test_negative_bulk_size_is_an_error():
    with pytest.raises(mx.base.MXNetError):
        engine.set_bulk_size(-1)


def test_bad_engine_type_fails_import_naming_the_variable(run_python):
    res = run_python("import mxnet", MXNET_ENGINE_TYPE="NoSuchEngine")
    assert res.returncode != 0
    assert "MXNetError" in res.stderr
    assert "MXNET_ENGINE_TYPE" in res.stderr


@pytest.mark.parametrize("engine_type", ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"])
def test_each_engine_type_imports(run_python, engine_type):
    res = run_python("import mxnet as mx\nmx.engine.set_bulk_size(4)\nprint('ok')", MXNET_ENGINE_TYPE=engine_type)
    assert res.returncode == 0, res.stderr
    assert "ok" in res.stdout
