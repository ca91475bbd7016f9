"""Profiler: operator, C API and memory events as a Chrome trace, and aggregate statistics.

Usage (as MXNet 1.x)::

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='profile.json')
    mx.profiler.set_state('run')
    ...                                   # code to profile
    mx.profiler.set_state('stop')
    mx.profiler.dump()                    # writes profile.json (chrome://tracing, Perfetto)
    print(mx.profiler.dumps())            # aggregate table

``python -m mxnet.profiler report profile.json [--html out.html] [--top N]`` summarises a
trace: the operators with the most total time, and an HTML page with a bar chart.
"""
import contextlib
import ctypes
import threading
import warnings

from ..base import _LIB, check_call, c_str, c_str_array, py_str, ProfileHandle, KVStoreHandle

_STATES = {'stop': 0, 'run': 1}
_PROCESSES = {'worker': 0, 'server': 1}
_FORMATS = {'table': 0, 'json': 1}
_SORT_BY = {'total': 0, 'avg': 1, 'min': 2, 'max': 3, 'count': 4}
_KVSTORE = KVStoreHandle()  # no kvstore servers to forward to: profile_process='server' fails in C


def _check_choice(what, value, choices):
    if value not in choices:
        raise ValueError("%s must be one of %s, got %r" % (what, ", ".join(sorted(choices)), value))
    return choices[value]


def set_config(**kwargs):
    """Set up the profiler (keys: profile_all, profile_symbolic, profile_imperative,
    profile_memory, profile_api, filename, continuous_dump, dump_period, aggregate_stats,
    profile_process). Deletes an existing file of the output name."""
    keys = list(kwargs.keys())
    vals = [str(kwargs[k]) for k in keys]
    check_call(_LIB.MXSetProcessProfilerConfig(len(keys), c_str_array(keys), c_str_array(vals), _KVSTORE))


def profiler_set_config(mode='symbolic', filename='profile.json'):
    """Deprecated: use set_config. mode 'symbolic' profiles graphs only, 'all' everything."""
    warnings.warn('profiler.profiler_set_config() is deprecated; use profiler.set_config() instead',
                  DeprecationWarning, stacklevel=2)
    modes = {'symbolic': {'profile_symbolic': True, 'profile_imperative': False,
                          'profile_api': False, 'profile_memory': False},
             'all': {'profile_all': True}}
    kwargs = dict(_check_choice('mode', mode, modes))
    kwargs['filename'] = filename
    set_config(**kwargs)


_state = 'stop'


def set_state(state='stop', profile_process='worker'):
    """Start ('run') or stop ('stop') recording."""
    global _state
    code = _check_choice('state', state, _STATES)
    proc = _check_choice('profile_process', profile_process, _PROCESSES)
    check_call(_LIB.MXSetProcessProfilerState(ctypes.c_int(code), ctypes.c_int(proc), _KVSTORE))
    _state = state


def profiler_set_state(state='stop'):
    """Deprecated: use set_state."""
    warnings.warn('profiler.profiler_set_state() is deprecated; use profiler.set_state() instead',
                  DeprecationWarning, stacklevel=2)
    set_state(state)


def get_state():
    """'run' or 'stop', as last set through this module."""
    return _state


def dump(finished=True, profile_process='worker'):
    """Write the events recorded since the last dump to the trace file. finished=True closes
    the JSON; later dumps write nothing until the profiler is started again."""
    proc = _check_choice('profile_process', profile_process, _PROCESSES)
    check_call(_LIB.MXDumpProcessProfile(ctypes.c_int(int(finished)), ctypes.c_int(proc), _KVSTORE))


def dump_profile():
    """Deprecated: use dump."""
    warnings.warn('profiler.dump_profile() is deprecated; use profiler.dump() instead',
                  DeprecationWarning, stacklevel=2)
    dump(True)


def dumps(reset=False, format='table', sort_by='total', ascending=False):
    """Aggregate statistics (needs set_config(aggregate_stats=True)) as a table or JSON text."""
    fmt = _check_choice('format', format, _FORMATS)
    key = _check_choice('sort_by', sort_by, _SORT_BY)
    out = ctypes.c_char_p()
    check_call(_LIB.MXAggregateProfileStatsPrintEx(ctypes.byref(out), ctypes.c_int(int(reset)), ctypes.c_int(fmt),
                                                   ctypes.c_int(key), ctypes.c_int(int(ascending))))
    return py_str(out.value)


def pause(profile_process='worker'):
    """Stop recording without stopping the profiler; events in between are dropped."""
    proc = _check_choice('profile_process', profile_process, _PROCESSES)
    check_call(_LIB.MXProcessProfilePause(ctypes.c_int(1), ctypes.c_int(proc), _KVSTORE))


def resume(profile_process='worker'):
    """Resume recording after pause()."""
    proc = _check_choice('profile_process', profile_process, _PROCESSES)
    check_call(_LIB.MXProcessProfilePause(ctypes.c_int(0), ctypes.c_int(proc), _KVSTORE))


class _Handle(object):
    """Owns a ProfileHandle and frees it with the object."""
    def __init__(self):
        self.handle = ProfileHandle()

    def __del__(self):
        if getattr(self, 'handle', None) is not None and self.handle.value is not None and _LIB is not None:
            _LIB.MXProfileDestroyHandle(self.handle)
            self.handle = None


class Domain(_Handle):
    """A category that groups tasks, frames, counters and markers in the trace."""
    def __init__(self, name):
        super(Domain, self).__init__()
        self.name = name
        check_call(_LIB.MXProfileCreateDomain(c_str(name), ctypes.byref(self.handle)))

    def __str__(self):
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Duration(_Handle):
    def start(self):
        check_call(_LIB.MXProfileDurationStart(self.handle))

    def stop(self):
        check_call(_LIB.MXProfileDurationStop(self.handle))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Duration):
    """A span in a domain (async b/e events in the trace)."""
    def __init__(self, domain, name):
        super(Task, self).__init__()
        self.domain, self.name = domain, name
        check_call(_LIB.MXProfileCreateTask(domain.handle, c_str(name), ctypes.byref(self.handle)))


class Frame(_Duration):
    """A frame in a domain (context events in the trace), e.g. one training iteration."""
    def __init__(self, domain, name):
        super(Frame, self).__init__()
        self.domain, self.name = domain, name
        check_call(_LIB.MXProfileCreateFrame(domain.handle, c_str(name), ctypes.byref(self.handle)))


class Event(_Duration):
    """A named span on the calling thread (B/E events in the trace)."""
    def __init__(self, name):
        super(Event, self).__init__()
        self.name = name
        check_call(_LIB.MXProfileCreateEvent(c_str(name), ctypes.byref(self.handle)))


class Counter(_Handle):
    """An integer value tracked over time (a counter track in the trace)."""
    def __init__(self, domain, name, value=None):
        super(Counter, self).__init__()
        self.domain, self.name = domain, name
        check_call(_LIB.MXProfileCreateCounter(domain.handle, c_str(name), ctypes.byref(self.handle)))
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        check_call(_LIB.MXProfileSetCounter(self.handle, ctypes.c_uint64(int(value))))

    def increment(self, delta=1):
        check_call(_LIB.MXProfileAdjustCounter(self.handle, ctypes.c_int64(int(delta))))

    def decrement(self, delta=1):
        check_call(_LIB.MXProfileAdjustCounter(self.handle, ctypes.c_int64(-int(delta))))

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker(object):
    """An instant event in a domain."""
    def __init__(self, domain, name):
        self.domain, self.name = domain, name

    def mark(self, scope='process'):
        """scope: 'global', 'process', 'thread', 'task' or 'marker'."""
        check_call(_LIB.MXProfileSetMarker(self.domain.handle, c_str(self.name), c_str(scope)))


_scope = threading.local()


@contextlib.contextmanager
def scope(name='<unk>:', append_mode=False):
    """Names a block of code: it shows as an event in the trace, and becomes this thread's
    profiler scope (a prefix for operator names) until the block ends. append_mode nests
    the name inside the enclosing scope."""
    name = name if name.endswith(':') else name + ':'
    previous = getattr(_scope, 'name', '<unk>:')
    current = previous + name if append_mode and previous != '<unk>:' else name
    _scope.name = current
    check_call(_LIB.MXSetProfilerScope(c_str(current)))
    event = Event(current)
    event.start()
    try:
        yield current
    finally:
        event.stop()
        _scope.name = previous
        check_call(_LIB.MXSetProfilerScope(c_str(previous)))
