"""`python -m mxnet.profiler report profile.json [--html out.html] [--top N]`: the operators
that took the most time in a trace, as a table and as a self-contained HTML bar chart."""
import argparse
import html
import json
import sys


def operator_times(trace):
    """name -> list of durations (us) of the operator B/E pairs in a chrome-trace dict."""
    open_events = {}
    times = {}
    for ev in trace.get('traceEvents', []):
        if ev.get('cat') != 'operator' or ev.get('ph') not in ('B', 'E'):
            continue
        key = (ev.get('pid'), ev.get('tid'), ev.get('name'))
        if ev['ph'] == 'B':
            open_events.setdefault(key, []).append(ev['ts'])
        elif open_events.get(key):
            start = open_events[key].pop()
            times.setdefault(ev['name'], []).append(ev['ts'] - start)
    return times


def summarize(times, top):
    """Rows (name, count, total_ms, avg_ms, min_ms, max_ms) by total time, largest first."""
    rows = [(name, len(d), sum(d) / 1000.0, sum(d) / 1000.0 / len(d), min(d) / 1000.0, max(d) / 1000.0)
            for name, d in times.items()]
    rows.sort(key=lambda r: (-r[2], r[0]))
    return rows[:top] if top > 0 else rows


def format_table(rows):
    lines = ['%-40s %10s %14s %12s %12s %12s' % ('Operator', 'Count', 'Total (ms)', 'Avg (ms)', 'Min (ms)',
                                                  'Max (ms)')]
    for name, count, total, avg, lo, hi in rows:
        lines.append('%-40s %10d %14.4f %12.4f %12.4f %12.4f' % (name, count, total, avg, lo, hi))
    if not rows:
        lines.append('(no operator events in this trace)')
    return '\n'.join(lines)


def format_html(rows, source):
    """A page with an inline SVG bar chart of total time per operator (no external assets)."""
    bar_h, gap, label_w, chart_w = 22, 6, 260, 520
    height = max(1, len(rows)) * (bar_h + gap) + 30
    biggest = max([r[2] for r in rows] or [1.0]) or 1.0
    bars = []
    for i, (name, count, total, avg, _, _) in enumerate(rows):
        y = 20 + i * (bar_h + gap)
        w = max(1.0, chart_w * total / biggest)
        label = html.escape(name)
        bars.append(
            '<text x="%d" y="%d" text-anchor="end" class="label">%s</text>'
            '<rect x="%d" y="%d" width="%.1f" height="%d" class="bar"><title>%s: %d calls, %.4f ms total, '
            '%.4f ms avg</title></rect><text x="%.1f" y="%d" class="value">%.3f ms (%d)</text>'
            % (label_w - 8, y + bar_h - 6, label, label_w, y, w, bar_h, label, count, total, avg,
               label_w + w + 6, y + bar_h - 6, total, count))
    rows_html = ''.join('<tr><td>%s</td><td>%d</td><td>%.4f</td><td>%.4f</td><td>%.4f</td><td>%.4f</td></tr>'
                        % ((html.escape(r[0]),) + tuple(r[1:])) for r in rows)
    return """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Operator time: %(src)s</title>
<style>body{font-family:sans-serif;margin:2em}.bar{fill:#3b7dd8}.label,.value{font-size:12px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}
td:first-child{text-align:left}</style></head>
<body><h1>Top operators by total time</h1><p>Trace: %(src)s</p>
<svg xmlns="http://www.w3.org/2000/svg" width="%(w)d" height="%(h)d">%(bars)s</svg>
<table><tr><th>Operator</th><th>Count</th><th>Total (ms)</th><th>Avg (ms)</th><th>Min (ms)</th><th>Max (ms)</th></tr>
%(rows)s</table></body></html>
""" % {'src': html.escape(source), 'w': label_w + chart_w + 160, 'h': height, 'bars': ''.join(bars),
       'rows': rows_html}


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m mxnet.profiler')
    sub = parser.add_subparsers(dest='command')
    rep = sub.add_parser('report', help='top operators of a trace written by profiler.dump()')
    rep.add_argument('trace', help='profile.json written by mx.profiler.dump()')
    rep.add_argument('--html', help='also write a self-contained HTML page with a bar chart here')
    rep.add_argument('--top', type=int, default=20, help='how many operators to show (default 20; 0 = all)')
    args = parser.parse_args(argv)
    if args.command != 'report':
        parser.print_help()
        return 2
    try:
        with open(args.trace) as f:
            trace = json.load(f)
    except (OSError, ValueError) as err:
        sys.stderr.write('cannot read trace %s: %s\n' % (args.trace, err))
        return 1
    rows = summarize(operator_times(trace), args.top)
    print(format_table(rows))
    if args.html:
        with open(args.html, 'w') as f:
            f.write(format_html(rows, args.trace))
        print('wrote %s' % args.html)
    return 0
