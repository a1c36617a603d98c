#!/usr/bin/env python3
"""Plot CSV files of benchmarks/element_integration (GPU and --backend=cpu).

    plot_element_integration.py OUTPUT.png [--peak-tflops=33.4] FILE.csv ...

Left: element matrices a second over the degree, one line per form, element
and dimension, GPU solid and deal.II's FEValues assembly (CPU ranks) dashed.
Right: the GPU's element-matrix TFLOP/s as a percentage of the FP64 peak
given (the H100's FMA units by default), with issue 24's 50 % line. Where
several rows give a point, the fastest is drawn.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(row):
    name = row["form"]
    if row.get("element", "q") == "dgq":
        name += " DGQ"
    return name + (" 2D" if row["dim"] == "2" else " 3D")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    output, peak, files = argv[1], 33.4, []
    for arg in argv[2:]:
        if arg.startswith("--peak-tflops="):
            peak = float(arg.split("=", 1)[1])
        else:
            files.append(arg)
    # (backend, label) -> k -> (element matrices/s, GFLOP/s), fastest kept
    best = defaultdict(dict)
    for name in files:
        with open(name) as f:
            for row in csv.DictReader(f):
                rate = float(row["elements_per_s"])
                if rate <= 0:
                    continue
                key, k = (row["backend"], label(row)), int(row["k"])
                if k not in best[key] or rate > best[key][k][0]:
                    best[key][k] = (rate, float(row["gflops"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    colors = {}
    for (backend, name), points in sorted(best.items()):
        color = colors.setdefault(name, "C%d" % (len(colors) % 10))
        ks = sorted(points)
        style = "-o" if backend == "gpu" else "--s"
        left.semilogy(ks, [points[k][0] for k in ks], style, color=color,
                      label="%s, %s" % (name, "GPU" if backend == "gpu"
                                        else "deal.II CPU"))
        if backend == "gpu":
            right.plot(ks, [100 * points[k][1] / (1000 * peak) for k in ks],
                       "-o", color=color, label=name)
    right.axhline(50, color="gray", linestyle=":", label="target 50 %")
    left.set_xlabel("degree k")
    left.set_ylabel("element matrices / s")
    left.set_title("Element matrices (fastest of the runs)")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7)
    right.set_xlabel("degree k")
    right.set_ylabel("%% of FP64 peak (%.1f TFLOP/s)" % peak)
    right.set_title("GPU element matrices against the FP64 peak")
    right.grid(True, alpha=0.3)
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(output, dpi=110)


if __name__ == "__main__":
    main(sys.argv)
