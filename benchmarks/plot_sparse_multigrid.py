#!/usr/bin/env python3
"""Plot CSV files of benchmarks/sparse_multigrid.

    plot_sparse_multigrid.py OUTPUT.png FILE.csv [FILE.csv ...]

Two panels over DoFs, ordering "none" and Jacobi smoothing: the seconds of
the CG solve and the time to solution (mesh, system matrix, multigrid and
solve), one line per device (GPU rank, CPU ranks) and degree, with the
matrix-free multigrid's times where the rows have them (its time to
solution counts the same mesh) and Geveler et al.'s (001) GTX 285 and
4-thread i7 solve times (XYZ ordering) for reference.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# 001, Figure 2: DoFs and total seconds (XYZ ordering, Jacobi).
PAPER = {
    ("Q1", "GTX 285 (001)"): [(33280, 0.09), (132096, 0.17), (526336, 0.37)],
    ("Q1", "i7 920, 4 threads (001)"): [(33280, 0.09), (132096, 0.44),
                                         (526336, 1.84)],
    ("Q2", "GTX 285 (001)"): [(33280, 0.15), (132096, 0.32), (526336, 0.84)],
    ("Q2", "i7 920, 4 threads (001)"): [(33280, 0.25), (132096, 1.10),
                                         (526336, 4.61)],
}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    solve = defaultdict(dict)
    total = defaultdict(dict)
    for name in sys.argv[2:]:
        with open(name) as f:
            for row in csv.DictReader(f):
                device = "GPU" if row["device"].startswith("cuda") else "CPU"
                ranks = row["device"].split(", ")[-1]
                if row["ordering"] != "none" or row["spmv"] != "automatic" \
                        or (device == "GPU" and ranks != "1 ranks"):
                    continue
                label = f"Q{row['k']} sparse GMG, {device} ({ranks})"
                dofs = int(row["dofs"])
                if row["smoother"] == "jacobi":
                    solve[label][dofs] = float(row["solve_s"])
                    total[label][dofs] = float(row["total_s"])
                if int(row["mf_iterations"]) > 0:
                    mf = f"Q{row['k']} matrix-free GMG, GPU"
                    solve[mf][dofs] = float(row["mf_solve_s"])
                    total[mf][dofs] = float(row["mesh_s"]) + float(
                        row["mf_setup_s"]) + float(row["mf_solve_s"])
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for ax, data, title in ((axes[0], solve, "CG solve to 1e-8"),
                            (axes[1], total, "time to solution")):
        for label in sorted(data):
            points = sorted(data[label].items())
            ax.loglog([p[0] for p in points], [p[1] for p in points],
                      "o-" if "sparse" in label else "s--", label=label)
        if ax is axes[0]:
            for (k, name), points in PAPER.items():
                ax.loglog([p[0] for p in points], [p[1] for p in points],
                          "x:", label=f"{k} {name}")
        ax.set_xlabel("DoFs")
        ax.set_ylabel("seconds")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Poisson on a plate with a hole: sparse-matrix multigrid "
                 "(benchmarks/sparse_multigrid)")
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
