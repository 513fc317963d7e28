#!/usr/bin/env python3
"""The paper's rate model on a random geometric graph, in vectorised numpy, as a researcher would write it.

Same model and integrator as loci's C++ (sim/dynamics/rate_model.cpp with stochastic Heun):
    tau dx/dt = -x + phi(g W x + s x + xi),  phi(u) = 1 / (1 + exp(-(u - 2))),  xi ~ N(0, 1) per node and step,
W the adjacency divided by each column's sum (in-degree), g = 4, s = 1, dt = tau = 0.1; xi is held through both
Heun stages. Every step is integrated and every 10th recorded, as the C++ benchmark does. It is the yardstick for
bench/network/run.sh, not a second source of truth: the random streams differ, so values differ (and loci draws
xi by Box-Muller and evaluates phi in float32, numpy by its ziggurat and in float64); the work per node-step is
the same.

--batch B advances B independent runs together (the state is nodes x B, W @ X a matrix product), numpy's best
case and the yardstick (run.sh uses B = 16, the runs the C++ side simulates); B = 1 is the plain
one-run-at-a-time loop, for context.

Usage: network_reference.py [--nodes 100,300] [--steps 2000] [--runs 1] [--batch 1] [--degree 8] [--seed 1]
Prints one line per node count: impl=numpy nodes=N batch=B ... node_steps_per_s=R cpu_node_steps_per_s=C
(C counts CPU time of every thread, BLAS's included: steadier than the wall clock on a shared machine).
"""
import argparse
import time

import numpy as np


def geometric_graph(n, degree, rng):
    """Uniform points in the unit square, joined when closer than the radius that gives about `degree` links."""
    radius = np.sqrt(degree / (np.pi * n))
    points = rng.random((n, 2))
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    a = (d < radius).astype(np.float64)
    np.fill_diagonal(a, 0.0)
    return a


def column_normalised(a):
    degree = a.sum(axis=0)
    degree[degree == 0] = 1.0  # an isolated node's column stays zero
    return a / degree[None, :]


def simulate(w, steps, batch, rng, record_every=10, dt=0.1, tau=0.1, g=4.0, s=1.0, theta=2.0):
    n = w.shape[0]
    x = rng.random((n, batch))
    recorded = np.empty((steps // record_every + 1, n, batch), dtype=np.float32)
    recorded[0] = x
    for step in range(1, steps + 1):
        xi = rng.standard_normal((n, batch))
        f1 = (-x + 1.0 / (1.0 + np.exp(-(g * (w @ x) + s * x + xi - theta)))) / tau
        predicted = x + dt * f1
        f2 = (-predicted + 1.0 / (1.0 + np.exp(-(g * (w @ predicted) + s * predicted + xi - theta)))) / tau
        x = x + 0.5 * dt * (f1 + f2)
        if step % record_every == 0:
            recorded[step // record_every] = x
    return recorded


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", default="100,300")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--degree", type=float, default=8.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    for n in (int(v) for v in args.nodes.split(",")):
        rng = np.random.default_rng(args.seed)
        w = column_normalised(geometric_graph(n, args.degree, rng))
        start, cpu_start = time.perf_counter(), time.process_time()
        for _ in range(max(1, args.runs // args.batch)):
            out = simulate(w, args.steps, args.batch, rng)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        node_steps = n * args.steps * args.batch * max(1, args.runs // args.batch)
        print(f"impl=numpy nodes={n} batch={args.batch} runs={max(args.runs, args.batch)} steps={args.steps} "
              f"seconds={seconds:.3f} node_steps_per_s={node_steps / seconds:.0f} "
              f"cpu_node_steps_per_s={node_steps / cpu:.0f} checksum={float(out.mean()):.6f}",
              flush=True)


if __name__ == "__main__":
    main()
