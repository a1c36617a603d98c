#!/usr/bin/env python3
"""Plot CSV files of benchmarks/multigrid_solve and multigrid_solve_cpu.

    plot_multigrid_solve.py OUTPUT.png FILE.csv [FILE.csv ...]

Two panels over DoFs: the solve rate (DoFs / seconds of the CG solve to
1e-8) and the time-to-solution rate (DoFs / seconds of mesh, deal.II's
set-up, the solver's set-up and the solve). One line per solver, degree,
mesh and V-cycle precision; rows of several files with the same line are
joined.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GPU_SETUP = ["mesh_s", "dealii_s", "operator_s", "levels_s", "transfer_s",
             "smoothers_s", "rhs_s"]
CPU_SETUP = ["mesh_s", "dealii_s", "solver_setup_s"]


def line_of(row):
    """Label and total seconds of a row of either program."""
    degree, mesh = row["degree"], row["mesh"]
    if "vcycle" in row:  # multigrid_solve (GPU)
        label = f"GPU GMG Q{degree} {mesh}, {row['vcycle']} V-cycle"
        if row.get("coefficient") == "kernel":
            label += ", a in the kernels"
        if row.get("ranks", "1") != "1":
            label += f" ({row['ranks']} ranks, MPS)"
        setup = sum(float(row[k]) for k in GPU_SETUP)
    else:  # multigrid_solve_cpu
        name = {"gmg": "deal.II CPU GMG", "amg": "CG + ML AMG"}[row["solver"]]
        label = f"{name} Q{degree} {mesh} ({row['ranks']} ranks)"
        setup = sum(float(row[k]) for k in CPU_SETUP)
    return label, setup + float(row["solve_s"])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lines = defaultdict(dict)
    for name in sys.argv[2:]:
        with open(name) as f:
            for row in csv.DictReader(f):
                label, total = line_of(row)
                dofs = float(row["dofs"])
                lines[label][dofs] = (dofs / float(row["solve_s"]),
                                      dofs / total)
    figure, axes = plt.subplots(1, 2, figsize=(12, 5))
    for label in sorted(lines):
        points = sorted(lines[label].items())
        x = [p[0] for p in points]
        style = "-o" if label.startswith("GPU") else "--s"
        for panel in range(2):
            axes[panel].loglog(x, [p[1][panel] for p in points], style,
                               label=label, markersize=4)
    titles = ["solve: DoFs / CG solve to 1e-8 [s]",
              "time to solution: DoFs / (set-up + solve) [s]"]
    for axis, title in zip(axes, titles):
        axis.set_title(title)
        axis.set_xlabel("DoFs")
        axis.set_ylabel("DoFs/s")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
