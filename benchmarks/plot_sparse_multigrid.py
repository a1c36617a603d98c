#!/usr/bin/env python3
"""Plot CSV files of benchmarks/sparse_multigrid and sparse_multigrid_cpu.

    plot_sparse_multigrid.py OUTPUT.png FILE.csv [FILE.csv ...]

One panel per dimension: the seconds of the CG solve to 1e-8 over DoFs,
ordering "none", the default SpMV kernel, one line per program (deal.II +
Trilinos on CPU ranks, ours on the GPU or on CPU ranks), smoother and
degree; the matrix-free multigrid's solve where the GPU rows have it; in
2D Geveler et al.'s (001) GTX 285 and 4-thread i7 solve times (XYZ
ordering, Jacobi) for reference. Where several runs give a point, the
fastest is drawn.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# 001, Figure 2: DoFs and solve seconds (XYZ ordering, Jacobi).
PAPER = {
    ("Q1", "GTX 285 (001)"): [(33280, 0.09), (132096, 0.17), (526336, 0.37)],
    ("Q1", "i7 920, 4 threads (001)"): [(33280, 0.09), (132096, 0.44),
                                         (526336, 1.84)],
    ("Q2", "GTX 285 (001)"): [(33280, 0.15), (132096, 0.32), (526336, 0.84)],
    ("Q2", "i7 920, 4 threads (001)"): [(33280, 0.25), (132096, 1.10),
                                         (526336, 4.61)],
}
SMOOTHERS = {"jacobi": "Jacobi", "spai": "SPAI(1)"}


def program(row):
    device = row["device"]
    ranks = device.split(", ")[-1]
    if device.startswith("deal.II"):
        return f"deal.II + Trilinos ({ranks})"
    if device.startswith("cuda"):
        return "ours, GPU"
    return f"ours, CPU ({ranks})"


def add(points, label, dofs, seconds):
    old = points[label].get(dofs)
    points[label][dofs] = seconds if old is None else min(old, seconds)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    solve = {2: defaultdict(dict), 3: defaultdict(dict)}
    for name in sys.argv[2:]:
        with open(name) as f:
            for row in csv.DictReader(f):
                if row["ordering"] != "none" or \
                        row["spmv"] not in ("automatic", "trilinos") or \
                        row["smoother"] not in SMOOTHERS:
                    continue
                dim, dofs = int(row["dim"]), int(row["dofs"])
                k = f"Q{row['k']}"
                add(solve[dim], f"{k} sparse, {SMOOTHERS[row['smoother']]}, "
                    f"{program(row)}", dofs, float(row["solve_s"]))
                if int(row.get("mf_iterations") or 0) > 0:
                    add(solve[dim], f"{k} matrix-free, GPU", dofs,
                        float(row["mf_solve_s"]))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, dim in zip(axes, (2, 3)):
        for label in sorted(solve[dim]):
            points = sorted(solve[dim][label].items())
            style = "s--" if "matrix-free" in label else \
                "^-" if "deal.II" in label else "o-"
            ax.loglog([p[0] for p in points], [p[1] for p in points], style,
                      label=label, markersize=4)
        if dim == 2:
            for (k, name), points in PAPER.items():
                ax.loglog([p[0] for p in points], [p[1] for p in points],
                          "x:", label=f"{k} {name}")
        ax.set_xlabel("DoFs")
        ax.set_ylabel("CG solve to 1e-8, seconds")
        ax.set_title(f"{dim}D plate with a hole")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle("Sparse-matrix multigrid (benchmarks/sparse_multigrid)")
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
