#!/usr/bin/env python3
"""Plot and tabulate CSV files of benchmarks/operator_throughput.

    plot_operator_throughput.py OUTPUT.png FILE.csv [FILE.csv ...]

One panel per degree: DoFs/s over DoFs, one line per implementation and
number type (matrix-free GPU, cuSPARSE, deal.II's CPU MatrixFree). Also
prints a markdown table of the largest size per implementation and degree.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402


def read(files):
    rows = []
    for name in files:
        with open(name) as f:
            for row in csv.DictReader(f):
                row["file"] = name
                rows.append(row)
    return rows


def label(row):
    name = {"gpu": "GPU::MatrixFree", "cusparse": "cuSPARSE SpMV",
            "deal.II-cpu": "deal.II CPU MatrixFree (16 ranks)"}[row["implementation"]]
    extra = []
    if row["number"] != "double":
        extra.append(row["number"])
    if row["refinement"] != "uniform":
        extra.append(row["refinement"])
    return name + (" (" + ", ".join(extra) + ")" if extra else "")


def main():
    output, files = sys.argv[1], sys.argv[2:]
    rows = read(files)
    degrees = sorted({int(r["degree"]) for r in rows})
    columns = 4
    lines = (len(degrees) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, figsize=(4 * columns, 3.4 * lines),
                             squeeze=False, sharey=True)
    for ax, degree in zip(axes.flat, degrees):
        series = defaultdict(list)
        for r in rows:
            if int(r["degree"]) == degree:
                series[label(r)].append((float(r["dofs"]), float(r["dofs_per_second"])))
        for name, points in sorted(series.items()):
            points.sort()
            ax.loglog(*zip(*points), marker="o", label=name)
        ax.set_title(f"Q{degree}, {rows[0]['dim']}D")
        ax.set_xlabel("DoFs")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("DoFs / s (one operator application)")
    for ax in axes.flat[len(degrees):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(output, dpi=110)

    largest = {}
    for r in rows:
        key = (label(r), int(r["degree"]))
        if key not in largest or float(r["dofs"]) > float(largest[key]["dofs"]):
            largest[key] = r
    print("| implementation | degree | DoFs | DoFs/s | of copy | bytes/DoF |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (name, degree), r in sorted(largest.items(), key=lambda x: (x[0][1], x[0][0])):
        print(f"| {name} | Q{degree} | {int(r['dofs'])} | {float(r['dofs_per_second']):.2e} | "
              f"{100 * float(r['fraction_of_copy']):.0f} % | {float(r['device_bytes_per_dof']):.0f} |")


if __name__ == "__main__":
    main()
