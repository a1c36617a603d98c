#!/usr/bin/env python3
"""Plot and tables of benchmarks/scaling.sh's CSV (doc/benchmarks.md).

    plot_scaling.py out.png scaling.csv

Left: weak-scaling efficiency T(1 GPU) / T(P GPUs) of an operator
application (with and without overlap of communication) and of the
multigrid solve, for the rows with B = P unit cubes at 4e7 DoFs a GPU or
more. Right: strong scaling of the 1.13e8-DoF Q4 problem (B = 2), speed-up
against one GPU. Prints the Markdown tables of doc/benchmarks.md.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("gpus", "degree", "boxes", "levels", "iterations"):
            r[k] = int(r[k])
        for k in ("dofs", "cells", "operator_setup_s", "apply_s",
                  "apply_no_overlap_s", "update_ghosts_s", "compress_s",
                  "exchanged_entries_mean", "exchanged_entries_max",
                  "v_cycle_s", "solve_s", "mesh_s", "dealii_s", "ours_s",
                  "residual", "l2_error", "device_bytes_in_use"):
            r[k] = float(r[k])
        r["per_gpu"] = r["dofs"] / r["gpus"]
    return rows


def series(rows, weak, large=True):
    """{(degree, mesh): [rows by gpus]} of the weak (at 4e7 DoFs a GPU or
    more, or fewer with large=False) or strong runs."""
    out = {}
    for r in rows:
        if weak and (r["boxes"] != r["gpus"] or (r["per_gpu"] >= 4e7) != large):
            continue
        if not weak and not (r["degree"] == 4 and r["mesh"] == "uniform"
                             and r["boxes"] == 2 and r["dofs"] > 1e8):
            continue
        out.setdefault((r["degree"], r["mesh"]), {})[r["gpus"]] = r
    return {k: [v[p] for p in sorted(v)] for k, v in out.items()}


def table(rows, title, strong=False):
    print(f"\n{title}\n")
    print("| k | mesh | GPUs | DoFs | apply [ms] | no overlap [ms] | "
          "op. eff. | ghost exchange [ms] | GB/s a GPU | it | V-cycle [ms] "
          "| solve [s] | MG eff. | mesh + deal.II [s] | ours [s] |")
    print("| - | --- | -: | ---: | ---: | ---: | ---: | ---: | ---: | -: "
          "| ---: | ---: | ---: | ---: | ---: |")
    for (k, mesh), s in sorted(rows.items()):
        base = s[0]
        for r in s:
            scale = r["gpus"] / base["gpus"] if strong else 1
            op_eff = base["apply_s"] / r["apply_s"] / scale
            mg_eff = base["solve_s"] / r["solve_s"] / scale
            rate = (8 * r["exchanged_entries_mean"] / r["update_ghosts_s"] / 1e9
                    if r["gpus"] > 1 else 0)
            print(f"| {k} | {mesh} | {r['gpus']} | {r['dofs']:.3g} | "
                  f"{r['apply_s'] * 1e3:.2f} | "
                  f"{r['apply_no_overlap_s'] * 1e3:.2f} | {op_eff:.0%} | "
                  f"{r['update_ghosts_s'] * 1e3:.2f} | {rate:.1f} | "
                  f"{r['iterations']} | {r['v_cycle_s'] * 1e3:.1f} | "
                  f"{r['solve_s']:.3f} | {mg_eff:.0%} | "
                  f"{r['mesh_s'] + r['dealii_s']:.1f} | {r['ours_s']:.1f} |")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = load(sys.argv[2])
    weak, strong = series(rows, True), series(rows, False)
    table(weak, "Weak scaling (efficiency: time on 1 GPU / time on P)")
    table(strong, "Strong scaling (efficiency: speed-up / P)", True)
    table(series(rows, True, False), "Weak scaling, small problems")

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (k, mesh), s in sorted(weak.items()):
        p = [r["gpus"] for r in s]
        if mesh == "uniform":
            a.plot(p, [s[0]["apply_s"] / r["apply_s"] for r in s], "o-",
                   label=f"Q{k} operator")
            if len(s) > 1:
                a.plot(p[1:], [s[0]["apply_s"] / r["apply_no_overlap_s"]
                               for r in s[1:]], "x:",
                       label=f"Q{k} operator, no overlap")
        a.plot(p, [s[0]["solve_s"] / r["solve_s"] for r in s], "s--",
               label=f"Q{k} {mesh} MG-CG solve")
    a.axhline(0.9, color="grey", lw=0.8)
    a.axhline(0.75, color="grey", lw=0.8, ls="--")
    a.set_xscale("log", base=2)
    a.set_xlabel("GPUs")
    a.set_ylabel("weak-scaling efficiency")
    a.set_title("Weak scaling, 4.9-5.7e7 DoFs a GPU")
    a.legend(fontsize=7)
    for (k, mesh), s in sorted(strong.items()):
        p = [r["gpus"] for r in s]
        b.plot(p, [s[0]["apply_s"] / r["apply_s"] for r in s], "o-",
               label=f"Q{k} operator")
        b.plot(p, [s[0]["solve_s"] / r["solve_s"] for r in s], "s--",
               label=f"Q{k} MG-CG solve")
        b.plot(p, p, color="grey", lw=0.8, label="ideal")
    b.set_xscale("log", base=2)
    b.set_yscale("log", base=2)
    b.set_xlabel("GPUs")
    b.set_ylabel("speed-up over 1 GPU")
    b.set_title("Strong scaling, 1.13e8 DoFs")
    b.legend(fontsize=7)
    for ax in (a, b):
        ax.set_xticks([1, 2, 4, 8])
        ax.set_xticklabels(["1", "2", "4", "8"])
    b.set_yticks([1, 2, 4, 8])
    b.set_yticklabels(["1", "2", "4", "8"])
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
