"""The note graph: PageRank importance for the relational signal, and a note's neighbourhood for ``graph NOTE``."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

import numpy as np

DAMPING = 0.85


def pagerank(
    nodes: list[int], edges: list[tuple[int, int]], iterations: int = 50, tolerance: float = 1e-9
) -> dict[int, float]:
    """``imp = (1-d)/N + d·Σ neighbour_imp / out_degree``, dangling mass spread evenly; sums to 1."""
    n = len(nodes)
    if n == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    pairs = [(index[a], index[b]) for a, b in edges if a in index and b in index]
    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    out_degree = np.bincount(src, minlength=n).astype(np.float64)
    rank = np.full(n, 1.0 / n)
    for _ in range(iterations):
        share = np.divide(rank, out_degree, out=np.zeros(n), where=out_degree > 0)
        incoming = np.bincount(dst, weights=share[src], minlength=n) if len(pairs) else np.zeros(n)
        dangling = rank[out_degree == 0].sum()
        updated = (1 - DAMPING) / n + DAMPING * (incoming + dangling / n)
        if np.abs(updated - rank).sum() < tolerance:
            rank = updated
            break
        rank = updated
    return {node: float(rank[i]) for node, i in index.items()}


def relational_signal(importance: float | None, lowest: float, highest: float) -> float:
    """Importance on a log scale between the least and the most important note: 0..1."""
    if importance is None or highest <= lowest or lowest <= 0:
        return 0.0
    return float(np.log(importance / lowest) / np.log(highest / lowest))


def neighbourhood(edges: Iterable[tuple[int, int]], start: int, depth: int) -> dict[int, int]:
    """The notes at most ``depth`` hops from ``start`` along edges in either direction, each with its distance.

    The walk ends as soon as a hop reaches no note not already reached, so any depth past the graph's
    diameter costs what that diameter costs, not one pass over every edge per hop asked for (``--depth
    1000000``)."""
    adjacent: dict[int, set[int]] = defaultdict(set)
    for a, b in edges:
        adjacent[a].add(b)
        adjacent[b].add(a)
    distance, frontier, hop = {start: 0}, [start], 0
    while frontier and hop < depth:
        hop += 1
        reached = []
        for node in frontier:
            for other in adjacent.get(node, ()):
                if other not in distance:
                    distance[other] = hop
                    reached.append(other)
        frontier = reached
    return distance
