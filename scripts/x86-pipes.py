#!/usr/bin/env python3
"""Which vector operations take issue slots from AESENC on this x86 CPU.

The fused AES-GCM loops are bound by the AES units only if everything
else they issue (XOR, shuffles, adds, carry-less multiplies) fits beside
the rounds. This measures it: a loop of CHAINS independent VAESENC chains
(AESENC at xmm), two rounds an iteration, alone and with K independent
operations of one kind spread among the rounds (write-only destinations,
so nothing waits on them). The time over the rounds-alone loop's gives
the operation's cost in AES slots: 0 means it issues beside the rounds
for free, 1 that each one displaces a round. Then a mix: one step of a
fused loop's own operation counts on the same chains, for 14 rounds
(default: the loop of the width's backend, MIXES below).

A neighbour on the same core (the other hardware thread, another guest's
vCPU) shares the units: where one used the multiplier, VPCLMULQDQ here
took half its usual throughput, for whole runs of this script at a time
(the mix then at 1.4-1.6 where it is otherwise 1.15-1.19, Zen 5). Each
row is the best of REPS runs, interleaved; run it a few times and keep
the lower figures.

    scripts/x86-pipes.py [--width zmm|ymm|xmm] [--chains N] [--reps N]
                         [--iters N] [--mix SPEC] [--cc CC] [--json]

--mix SPEC: a name of MIXES, or "op:count,...[/rounds]" (rounds: the
AES rounds the counts go with, default 112), e.g.
"clmul:26,xor:28,tern:13,shufd:10,shufb:9,add:8,ext:3/112".
Generates a C file with inline assembly, compiles it with CC (default cc)
and runs it; needs VAES for ymm/zmm (AVX-512F for zmm) and AES-NI for
xmm. Operations the CPU lacks are left out, and say so.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# name: (assembly with %{w} = the width's registers, %{x} = XMM,
#        {d} = destination index,
#        CPU flags needed besides the width's, widths it exists at).
# VPTERNLOGQ reads its destination: it rotates over registers 16-23
# (AVX-512VL, which it needs anyway), so that no chain of them forms.
OPS = {
    "xor":    ("vpxor{q} %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "tern":   ("vpternlogq $0x96, %{w}13, %{w}14, %{w}{d}",
               ["avx512f", "avx512vl"], "xyz"),
    "add":    ("vpaddd %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "shift":  ("vpsllq $1, %{w}14, %{w}{d}", [], "xyz"),
    "shufb":  ("vpshufb %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "shufd":  ("vpshufd $0x4e, %{w}14, %{w}{d}", [], "xyz"),
    "unpack": ("vpunpcklqdq %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "alignr": ("vpalignr $8, %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "bshift": ("vpsrldq $8, %{w}14, %{w}{d}", [], "xyz"),
    "rotd":   ("vprold $16, %{w}14, %{w}{d}", ["avx512f", "avx512vl"], "xyz"),
    "shldw":  ("vpshldw $8, %{w}14, %{w}14, %{w}{d}",
               ["avx512_vbmi2", "avx512vl"], "xyz"),
    "permq":  ("vpermq $0x4e, %{w}14, %{w}{d}", ["avx2"], "yz"),
    "permb":  ("vpermb %{w}13, %{w}14, %{w}{d}",
               ["avx512vbmi", "avx512vl"], "xyz"),
    "gfni":   ("vgf2p8affineqb $0, %{w}13, %{w}14, %{w}{d}", ["gfni"], "xyz"),
    "ext":    ("vextracti128 $1, %{w}14, %{x}{d}", ["avx2"], "yz"),
    "clmul":  ("vpclmulqdq $0x11, %{w}13, %{w}14, %{w}{d}", [], "xyz"),
    "load":   ("vmovdqu (%1), %{w}{d}", [], "xyz"),
    "mov":    ("vmovdqa %{w}14, %{w}{d}", [], "xyz"),
}
# at zmm, the AVX-512 spelling
ZMM_ASM = {
    "xor": "vpxorq %{w}13, %{w}14, %{w}{d}",
    "ext": "vextracti32x4 $1, %{w}14, %{x}{d}",
    "load": "vmovdqu64 (%1), %{w}{d}",
    "mov": "vmovdqa64 %{w}14, %{w}{d}",
}
# The AES-256 GCM encryption loops' operations per 112 rounds (8 states
# x 14), counted in the binary (gcc 12 -O2, 2026-12-07; register copies
# left out: they cost nothing): (width, spec).
MIXES = {
    "vaes-avx512-kara": ("zmm", "clmul:26,xor:28,tern:13,shufd:10,shufb:9,"
                                "add:8,ext:3/112"),
    "vaes-avx2": ("ymm", "clmul:26,xor:53,shufb:10,shufd:10,add:2,ext:1/112"),
    "aesni": ("xmm", "clmul:26,xor:52,shufb:16,shufd:10,add:8/112"),
}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def width_needs(width):
    return {"xmm": ["aes", "pclmulqdq", "avx"],
            "ymm": ["vaes", "vpclmulqdq", "avx2"],
            "zmm": ["vaes", "vpclmulqdq", "avx512f", "avx512bw"]}[width]


def op_asm(name, width):
    text = ZMM_ASM.get(name, OPS[name][0]) if width == "zmm" else OPS[name][0]
    return text.replace("{q}", "")


def body(width, chains, rounds, extra):
    """rounds x chains AESENC on registers 0..chains-1 (key in 15); the
    operations of extra (a list of names) spread evenly among them, sources
    13 and 14, destination 12: written, never read, so nothing waits."""
    w = "%%" + width
    lines = []
    n_aes = rounds * chains
    placed = 0
    for i in range(n_aes):
        c = i % chains
        lines.append("vaesenc %s15, %s%d, %s%d" % (w, w, c, w, c))
        target = (i + 1) * len(extra) // n_aes
        while placed < target:
            text = op_asm(extra[placed], width)
            d = 16 + placed % 8 if extra[placed] == "tern" else 12
            lines.append(text.replace("%{w}", w).replace("%{x}", "%%xmm")
                         .replace("{d}", str(d)))
            placed += 1
    return "\\n\\t".join(lines)


def interleave(counts):
    """names repeated by count, kinds spread evenly (largest remainder)"""
    total = sum(counts.values())
    out, given = [], {k: 0 for k in counts}
    for i in range(total):
        best = max(counts, key=lambda k: (counts[k] * (i + 1) / total
                                          - given[k], counts[k]))
        out.append(best)
        given[best] += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--width", choices=["xmm", "ymm", "zmm"])
    ap.add_argument("--chains", type=int, default=12)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--iters", type=int, default=1000000)
    ap.add_argument("--mix")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    if os.uname().machine not in ("x86_64", "amd64"):
        sys.exit("x86-pipes: an x86-64 CPU is needed")
    flags = cpu_flags()
    if a.width is None:
        a.width = next((w for w in ("zmm", "ymm", "xmm")
                        if all(f in flags for f in width_needs(w))), None)
        if a.width is None:
            sys.exit("x86-pipes: this CPU has no AES-NI with AVX")
    missing = [f for f in width_needs(a.width) if f not in flags]
    if missing:
        sys.exit("x86-pipes: %s needs %s, which this CPU lacks"
                 % (a.width, " ".join(missing)))
    if not 4 <= a.chains <= 12:
        sys.exit("x86-pipes: --chains must be 4..12 (registers 0-11; 12-15 "
                 "hold the operands)")
    if a.reps < 1 or a.iters < 1:
        sys.exit("x86-pipes: --reps and --iters must be at least 1")
    if a.mix is None:
        a.mix = next(k for k, (w, _) in MIXES.items() if w == a.width)
    spec = MIXES[a.mix][1] if a.mix in MIXES else a.mix
    spec, _, mix_rounds = spec.partition("/")
    mix = {}
    for item in spec.split(","):
        k, _, v = item.partition(":")
        if k not in OPS or not v.isdigit():
            sys.exit("x86-pipes: --mix: bad item '%s' (name:count; names: %s;"
                     " or one of %s)" % (item, " ".join(OPS), " ".join(MIXES)))
        mix[k] = int(v)
    if mix_rounds and (not mix_rounds.isdigit() or int(mix_rounds) == 0):
        sys.exit("x86-pipes: --mix: the rounds after / must be a positive "
                 "number, not '%s'" % mix_rounds)
    mix_aes = int(mix_rounds) if mix_rounds else 112

    wl = a.width[0]
    rows, skipped = [], []
    for name, (_, needs, widths) in OPS.items():
        lack = [f for f in needs if f not in flags]
        if wl not in widths or lack:
            skipped.append("%s (%s)" % (name, "not at " + a.width
                                       if wl not in widths
                                       else "needs " + " ".join(lack)))
            continue
        for k in (a.chains // 2, a.chains, 2 * a.chains):
            rows.append((name, k, body(a.width, a.chains, 2, [name] * k),
                         2 * a.chains))
    lack = [k for k in mix if k in [s.split()[0] for s in skipped]]
    if lack:
        skipped.append("the mix (it has %s)" % " ".join(lack))
    else:
        # the mix's counts per mix_aes rounds, on chains x 14 rounds
        n_aes = 14 * a.chains
        scaled = {k: round(v * n_aes / mix_aes) for k, v in mix.items()}
        rows.append(("mix", sum(scaled.values()),
                     body(a.width, a.chains, 14, interleave(scaled)), n_aes))
        rows.append(("mix-rounds", 0, body(a.width, a.chains, 14, []), n_aes))
    base = body(a.width, a.chains, 2, [])

    src = ["#include <stdio.h>", "#include <time.h>",
           "static double now(void) { struct timespec t; "
           "clock_gettime(CLOCK_MONOTONIC, &t); "
           "return t.tv_sec + t.tv_nsec * 1e-9; }",
           "static unsigned char buf[128] __attribute__((aligned(64)));"]
    all_rows = [("base", 0, base, 2 * a.chains)] + rows
    for i, (_, _, b, _) in enumerate(all_rows):
        src.append('static void f%d(long n) { __asm__ volatile('
                   '"1:\\n\\t%s\\n\\tdec %%0\\n\\tjnz 1b" : "+r"(n) : '
                   '"r"(buf) : "memory"); }' % (i, b))
    src.append("int main(void) { static double best[%d]; int i, j;"
               % len(all_rows))
    src.append("void (*f[])(long) = {%s};"
               % ", ".join("f%d" % i for i in range(len(all_rows))))
    src.append("for (i = 0; i < %d; i++) best[i] = 1e30;" % len(all_rows))
    src.append("for (j = 0; j < %d; j++) for (i = 0; i < %d; i++) {"
               " double t = now(); f[i](%d); t = now() - t;"
               " if (t < best[i]) best[i] = t; }"
               % (a.reps, len(all_rows), a.iters))
    src.append('for (i = 0; i < %d; i++) printf("%%.6e\\n", best[i] / %d);'
               % (len(all_rows), a.iters))
    src.append("return 0; }")

    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, "pipes.c"), os.path.join(tmp, "pipes")
        with open(c, "w") as f:
            f.write("\n".join(src) + "\n")
        cc = subprocess.run([a.cc, "-O1", "-o", exe, c],
                            capture_output=True, text=True)
        if cc.returncode != 0:
            sys.exit("x86-pipes: %s failed:\n%s" % (a.cc, cc.stderr[-2000:]))
        run = subprocess.run([exe], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("x86-pipes: the measuring program failed (%d)"
                     % run.returncode)
        secs = [float(x) for x in run.stdout.split()]

    t_base = secs[0]
    aes_per_ns = 2 * a.chains / (t_base * 1e9)
    out = {"width": a.width, "chains": a.chains, "reps": a.reps,
           "aes_per_ns": aes_per_ns, "mix": a.mix,
           "mix_spec": "%s/%d" % (spec, mix_aes), "rows": []}
    t_mixr = None
    for (name, k, _, n_aes), t in zip(rows, secs[1:]):
        if name == "mix-rounds":
            t_mixr = t
    for (name, k, _, n_aes), t in zip(rows, secs[1:]):
        if name == "mix-rounds":
            continue
        ref = t_mixr if name == "mix" else t_base
        ratio = t / ref
        row = {"op": name, "per_round": k / n_aes, "count": k,
               "ratio": ratio,
               "aes_slots": (ratio - 1) * n_aes / k if k else 0.0}
        out["rows"].append(row)
    out["skipped"] = skipped
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print("x86-pipes: %s, %d chains; rounds alone: %.2f AESENC a ns "
          "(best of %d)" % (a.width, a.chains, aes_per_ns, a.reps))
    print("%-8s %9s %7s %10s" % ("op", "per AES", "time", "AES slots"))
    for r in out["rows"]:
        if r["op"] == "mix":
            print("mix%s on %d rounds: %.3f the rounds' time alone"
                  % (" " + a.mix if a.mix in MIXES else "", 14 * a.chains,
                     r["ratio"]))
            print("    (%s)" % out["mix_spec"])
        else:
            print("%-8s %9.2f %7.3f %10.2f" % (r["op"], r["per_round"],
                                               r["ratio"], r["aes_slots"]))
    if skipped:
        print("left out: " + ", ".join(skipped))


if __name__ == "__main__":
    main()
