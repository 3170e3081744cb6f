"""The daemon benchmark's report: the latency table, the verdicts and the camera run's RSS."""

from __future__ import annotations

import statistics
from typing import Any


def pct(values: list[float], p: float) -> float:
    """Return the ``p``-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def camera_report(c: dict[str, Any], exact_rss_kb: int) -> str:
    """Format the camera run's RSS beside the exact camera's."""
    mb = 1024
    line = (f"daemon RSS with the camera on rendered frames (level {c['level']}): at start "
            f"{c['start']['VmRSS'] / mb:.1f} MB, after {c['hands_played']} hands "
            f"{c['end']['VmRSS'] / mb:.1f} MB (peak {c['end']['VmHWM'] / mb:.1f} MB; "
            f"{c['camera_frames']} frames read, {c['rendered']} rendered by the dealer's "
            f"process, peak {c['dealer']['VmHWM'] / mb:.1f} MB); exact camera (board file): "
            f"{exact_rss_kb / mb:.1f} MB; target < 200 MB: "
            f"{'met' if c['end']['VmHWM'] < 200 * mb else 'NOT met'}")
    if c["samples"]:
        line += "; per hand: " + ", ".join(f"{x / mb:.0f}" for x in c["samples"]) + " MB"
    if c["error"]:
        line += f" (stopped: {c['error']})"
    return line


def report(r: dict[str, Any]) -> str:
    """Format the figures as a Markdown table plus the verdicts."""
    def row(name: str, xs: list[float]) -> str:
        return (f"| {name} | {len(xs)} | {statistics.median(xs) * 1e3:.3f} | "
                f"{pct(xs, 99) * 1e3:.3f} |")

    old = bool(r["latency_old"])
    lines = [f"method: {'old, with the tap' if r.get('tap') else 'no tap'} (--tap: a second "
             "subscriber of the dealer feed in this process, for the old measure); the "
             f"simulator's draw reply held back {r.get('reply_after', 0) * 1e3:g} ms", "",
             "| path | samples | p50 ms | p99 ms |", "| --- | ---: | ---: | ---: |",
             row("card frame written -> prompt at a subscriber process (daemon)",
                 r["latency"])]
    if old:
        lines.append(row("(old: draw request -> prompt in the dealer's asyncio loop)",
                         r["latency_old"]))
    lines += [row("(draw request -> frame written: the control socket's round trip)",
                  r["request"]),
              row("bare: pty frame across processes", r["pty"]),
              row("bare: journal commit (WAL, FULL)", r["commit"]),
              row("bare: ZeroMQ PUB -> SUB hop to a subscriber process", r["hop"]),
              row("(old bare hop: PUB -> SUB in one process)", r["hop_local"]),
              row("bare: the same hop, the PUB with the dealer feed's connections (+ console)",
                  r["hop_feed"]),
              row("bare: the three, added per sample", r["total"]),
              row("bare: the three with the hop to the dealer feed's connections",
                  r["total_feed"]),
              row("(old bare sum, with the hop in one process)", r["total_local"]),
              row("(anchor write, after the prompt: not in the sum)", r["anchor"])]
    bare50 = statistics.median(r["total"])
    bare99 = pct(r["total"], 99)
    p99 = pct(r["latency"], 99)
    lines.append("")
    lines.append(f"bare cost of a card (per-sample sums): p50 {bare50 * 1e3:.3f} ms, p99 "
                 f"{bare99 * 1e3:.3f} ms; daemon p99 / bare p99 = {p99 / bare99:.2f} "
                 f"(target <= 1.5: {'met' if p99 <= 1.5 * bare99 else 'NOT met'})")
    lines.append(f"daemon p50 / bare p50 = {statistics.median(r['latency']) / bare50:.2f}")
    if r["total_feed"]:
        feed50, feed99 = statistics.median(r["total_feed"]), pct(r["total_feed"], 99)
        lines.append(f"with the bare hop to the dealer feed's connections (the subscriber and "
                     f"the console, as the prompt's): bare p50 {feed50 * 1e3:.3f} ms, p99 "
                     f"{feed99 * 1e3:.3f} ms; daemon p99 / bare p99 = {p99 / feed99:.2f} "
                     f"(target <= 1.5: {'met' if p99 <= 1.5 * feed99 else 'NOT met'}); "
                     f"p50 ratio {statistics.median(r['latency']) / feed50:.2f}")
    if old:
        old50, old99 = statistics.median(r["total_local"]), pct(r["total_local"], 99)
        lines.append(f"old measure (request -> asyncio loop, hop in one process): p99 ratio "
                     f"{pct(r['latency_old'], 99) / old99:.2f}, p50 ratio "
                     f"{statistics.median(r['latency_old']) / old50:.2f}")
    m = r["rss"]
    lines.append(f"daemon RSS after {r['hands']} hands: {m.get('VmRSS', 0) / 1024:.1f} MB "
                 f"(peak {m.get('VmHWM', 0) / 1024:.1f} MB; target < 200 MB); "
                 f"SIGTERM exit status {r['exit']}")
    return "\n".join(lines)
