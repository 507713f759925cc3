#!/usr/bin/env python3
"""Render the JSON of `rijn speed --json` as a Markdown report.

usage: bench/report.py speed.json [--measures msg16,msg1500,long,...]

The ratio columns are peer time / rijn time as measured side by side in
the run (> 1 means rijn is faster); they are copied, not recomputed.
"""
import argparse
import json
import sys


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json_file")
    ap.add_argument("--measures", help="comma-separated measure ids to keep")
    args = ap.parse_args()

    with open(args.json_file) as f:
        d = json.load(f)
    keep = set(args.measures.split(",")) if args.measures else None

    clock = d["clock"]
    timing = d["timing"]
    peers = d["peers"]
    out = sys.stdout
    out.write(f"# rijn speed (librijn {d['version']})\n\n")
    out.write(f"- core clock: {clock['core_ghz']:.2f} GHz, {clock['method']}; "
              f"timer: {clock.get('timer', 'CLOCK_MONOTONIC')}\n")
    out.write(f"- {timing['statistic']} of {timing['reps']} repetitions of "
              f"~{timing['rep_seconds'] * 1e3:g} ms per cell and library, "
              f"libraries interleaved; long buffer {timing['long_bytes']} B\n")
    for name in ("openssl", "gcrypt"):
        out.write(f"- {name}: {peers.get(name) or 'absent'}\n")
    out.write(f"- CPU features: {d.get('cpu_features', '?')}\n")
    out.write("- ratio = peer time / rijn time (> 1: rijn is faster); "
              "`cycles` rows are per operation\n\n")

    out.write("| backend | bits | measure | rijn | GB/s | openssl | ratio "
              "| gcrypt | ratio |\n")
    out.write("|---|---:|---|---:|---:|---:|---:|---:|---:|\n")
    for r in d["results"]:
        if keep and r["measure"] not in keep:
            continue
        unit = "c/B" if r["unit"] == "cycles/byte" else "cyc"
        rj = r["rijn"]
        cols = [r["impl"], str(r["bits"]), f"{r['measure']} ({unit})",
                fmt(rj["value"]), fmt(rj.get("gbps"), 3)]
        for peer in ("openssl", "gcrypt"):
            p = r.get(peer)
            cols += [fmt(p and p["value"]), fmt(p and p["ratio"]) + ("x" if p else "")]
        out.write("| " + " | ".join(cols) + " |\n")

    threads = d.get("threads")
    if threads:
        out.write("\n| backend | bits | library | threads | 1 thread GB/s "
                  "| N threads GB/s | scaling |\n")
        out.write("|---|---:|---|---:|---:|---:|---:|\n")
        for t in threads:
            out.write(f"| {t['impl']} | {t['bits']} | {t['library']} | "
                      f"{t['threads']} | {t['gbps_1']:.3f} | "
                      f"{t['gbps_n']:.3f} | {t['scaling']:.2f}x |\n")
    if d.get("status") != "ok":
        out.write(f"\n**status: {d.get('status')}** (see the run's stderr)\n")


if __name__ == "__main__":
    main()
