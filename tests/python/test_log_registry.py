"""mx.log (glog-style loggers) and mx.registry (name -> class factories), as MXNet 1.x has them."""
import logging
import re
import warnings

import pytest

import mxnet as mx


class _Base(object):
    def __init__(self, a=1, b=2):
        self.a, self.b = a, b


def _factories(nickname):
    base = type("Base_" + nickname, (_Base,), {})
    return (base, mx.registry.get_register_func(base, nickname), mx.registry.get_alias_func(base, nickname),
            mx.registry.get_create_func(base, nickname))


def test_register_alias_and_create():
    base, register, alias, create = _factories("thing")

    @register
    class Foo(base):
        pass

    @alias("bar", "Baz")
    class Bar(base):
        pass
    assert sorted(mx.registry.get_registry(base)) == ["bar", "baz", "foo"]
    assert type(create("FOO")) is Foo and create("foo", 5).a == 5 and create("bar", b=7).b == 7
    assert type(create("baz")) is Bar
    foo = Foo()
    assert create(foo) is foo
    made = create('["foo", {"a": 3, "b": 4}]')
    assert (made.a, made.b) == (3, 4)
    assert create(thing="foo").a == 1  # the name as a keyword, as 1.x's initializer.create allows


@pytest.mark.parametrize("call,message", [
    (lambda c, f: c("nope"), "nope is not registered"),
    (lambda c, f: c(3), "must be of string type"),
    (lambda c, f: c(f, 3), "already an instance"),
])
def test_create_errors_are_assertion_errors(call, message):
    base, register, _, create = _factories("gadget")
    Foo = register(type("Foo", (base,), {}))
    with pytest.raises(AssertionError, match=message):
        call(create, Foo())


def test_register_rejects_other_classes_and_warns_on_override():
    base, register, _, _ = _factories("widget")
    with pytest.raises(AssertionError, match="subclass"):
        register(int)
    Foo = register(type("Foo", (base,), {}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        register(Foo, "foo")
    assert any("overriding" in str(w.message) for w in caught)


def test_logger_formats_like_glog(tmp_path):
    path = tmp_path / "run.log"
    logger = mx.log.get_logger("mx_log_test_file", filename=str(path), filemode="w", level=logging.INFO)
    assert logger.level == logging.INFO and [type(h) for h in logger.handlers] == [logging.FileHandler]
    logger.info("hello %d", 7)
    logger.debug("not shown")
    for h in logger.handlers:
        h.flush()
    lines = path.read_text().splitlines()
    assert len(lines) == 1
    assert re.match(r"^I\d{4} \d\d:\d\d:\d\d \d+ .*test_log_registry\.py:test_logger_formats_like_glog:\d+\] hello 7$",
                    lines[0]), lines[0]
    again = mx.log.get_logger("mx_log_test_file")
    assert again is logger and len(again.handlers) == 1


def test_stream_logger_colours_and_deprecated_spelling():
    logger = mx.log.get_logger("mx_log_test_stream")
    assert logger.level == mx.log.WARNING and isinstance(logger.handlers[0], logging.StreamHandler)
    record = logging.LogRecord("n", logging.ERROR, "p.py", 3, "boom", None, None, "fn")
    text = logger.handlers[0].formatter.format(record)
    assert text.startswith("\x1b[31mE") and text.endswith("p.py:fn:3]\x1b[0m boom")
    with pytest.warns(DeprecationWarning, match="get_logger"):
        assert mx.log.getLogger("mx_log_test_stream") is logger
    assert mx.log.get_logger().name == "root"
