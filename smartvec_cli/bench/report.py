"""Benchmark reports: markdown tables for people and the README, PNG plots, JSON files for scripts.

Plots need matplotlib (the ``bench`` extra); without it the reports are written without
them and the caller is told so.
"""

from __future__ import annotations

import json
from pathlib import Path

TYPE_LABELS = {
    "current": "current value",
    "time_point": "time point (date in words)",
    "as_of": "time point (--as-of)",
    "stable": "stable fact",
}


def num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def accuracy_markdown(report: dict) -> str:
    smart, cosine, data = report["smart"], report["cosine"], report["dataset"]
    lines = [
        f"Generated vault (seed {data['seed']}): {data['notes']} notes, {data['passages_stored']} stored passages, "
        f"{data['questions']} questions, contradiction rate {data['contradiction_rate']:.0%}, "
        f"replayed with {data['index_runs']} index runs.",
        "",
        "| metric | plain cosine | smartvec |",
        "|---|---:|---:|",
        f"| top-1 accuracy | {pct(cosine['top1'])} | **{pct(smart['top1'])}** |",
    ]
    for kind, label in TYPE_LABELS.items():
        n = smart["n_by_type"].get(kind, 0)
        lines.append(f"| top-1, {label} (n={n}) | {pct(cosine['by_type'].get(kind))} | {pct(smart['by_type'].get(kind))} |")
    lines += [
        f"| stale-answer rate | {pct(cosine['stale_rate'])} | {pct(smart['stale_rate'])} |",
        f"| top-1 is an injected contradiction | {pct(cosine['contradiction_rate'])} | {pct(smart['contradiction_rate'])} |",
        f"| top-1 is some version of the right passage | {pct(cosine['passage_top1'])} | {pct(smart['passage_top1'])} |",
        f"| ECE of `confidence` (10 bins) | {cosine['ece']:.3f} | {smart['ece']:.3f} |",
        "",
        "| contradiction rate | " + " | ".join(f"{s['rate']:.0%}" for s in report["sweep"]) + " |",
        "|---|" + "---:|" * len(report["sweep"]),
        "| plain cosine top-1 | " + " | ".join(pct(s["cosine"]) for s in report["sweep"]) + " |",
        "| smartvec top-1 | " + " | ".join(pct(s["smart"]) for s in report["sweep"]) + " |",
        "",
    ]
    reembed = report["reembed"]
    lines.append(
        f"Re-embedding after single-word edits of {reembed['notes_edited']} notes: {reembed['chunks_embedded']} passages embedded "
        f"instead of {reembed['whole_note_chunks']} for whole-note re-embedding ({reembed['passages_per_note']} passages per note): "
        f"**{reembed['saved']:.1%} saved**."
    )
    return "\n".join(lines) + "\n"


def targets_markdown(rows: list[dict]) -> str:
    lines = ["| target | measured | met |", "|---|---:|:---:|"]
    for row in rows:
        value, target = row["value"], row["target"]
        shown = f"{value:.2f}x" if "/" in row["name"] else (f"{value:.3f}" if row["name"].startswith("ECE") else pct(value))
        goal = f"{target}x" if "/" in row["name"] else (f"{target}" if row["name"].startswith("ECE") else pct(target))
        if "unit" in row:
            shown, goal = ("-" if value is None else f"{value:g} {row['unit']}"), f"{target:g} {row['unit']}"
        met = "-" if row["met"] is None else ("yes" if row["met"] else "**no**")
        lines.append(f"| {row['name']} {row['op']} {goal} | {shown} | {met} |")
    return "\n".join(lines) + "\n"


def perf_markdown(perf: dict) -> str:
    m, r = perf["machine"], perf["results"]
    load = m.get("load_average")
    shared = f" Load average before the run: {load[0]:.1f} (1 min) on {m['cpus']} cores." if load else ""
    lines = [
        f"{perf['notes']:,} notes, {r['passages']:,} passages ({r['passages_per_note']} per note); {m['cpu']} ({m['cpus']} cores), "
        f"{m['memory_gb']} GB RAM, {m['platform']}, Python {m['python']}, {m['embedder']}.{shared}",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| first index: throughput | {r['first_index_passages_per_s']:.1f} passages/s ({r['first_index_s']:.1f} s) |",
        f"| no-change refresh, in process | {r['nochange_refresh_s']:.3f} s |",
        f"| no-change refresh, cold CLI call | {num(r['nochange_refresh_cli_s'], '.2f')} s |",
        f"| one-note edit refresh, warm model | {r['edit_refresh_s']:.3f} s (max {r['edit_refresh_max_s']:.3f} s) |",
        f"| re-embedding saved by those single-word edits | {r['edit_reembed_saved']:.1%} |",
        f"| query latency in process, p50 / p95 | {r['query_p50_ms']:.1f} / {r['query_p95_ms']:.1f} ms |",
        f"| of which search without embedding, p50 / p95 | {r['search_p50_ms']:.1f} / {r['search_p95_ms']:.1f} ms |",
        f"| query as a cold CLI call, p50 / p95 | {num(r['query_cli_p50_s'], '.2f')} / {num(r['query_cli_p95_s'], '.2f')} s |",
        f"| query answered by the watch daemon, whole CLI process, p50 / p95 | {num(r.get('query_warm_p50_s'), '.3f')} / "
        f"{num(r.get('query_warm_p95_s'), '.3f')} s |",
        f"| `smartvec --help`, p50 / p95 | {num(r.get('help_cli_p50_s'), '.2f')} / {num(r.get('help_cli_p95_s'), '.2f')} s |",
        f"| model import and load | {r['model_load_s']:.1f} s |",
        f"| peak memory: benchmark process / cold CLI query / cold no-change refresh | {r['peak_rss_mb']:.0f} / "
        f"{num(r['query_cli_peak_rss_mb'], '.0f')} / {num(r['nochange_refresh_cli_peak_rss_mb'], '.0f')} MB |",
        f"| index folder size | {r['index_mb']:.1f} MB |",
    ]
    return "\n".join(lines) + "\n"


def results_markdown(accuracy: dict | None, perfs: list[dict], command: str) -> str:
    """The README's benchmark section body: the command, then every table."""
    parts = [f"Produced by `{command}`.\n"]
    if accuracy:
        parts += ["#### Accuracy\n", accuracy_markdown(accuracy), targets_markdown(accuracy["targets"])]
    for perf in perfs:
        parts += [f"#### Speed, {perf['notes']:,} notes\n", perf_markdown(perf), targets_markdown(perf["targets"])]
    return "\n".join(parts)


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_accuracy_by_type(report: dict, path: Path) -> bool:
    """Grouped bars: top-1 per question type (and overall) for both modes."""
    plt = _pyplot()
    if plt is None:
        return False
    kinds = list(TYPE_LABELS)
    labels = ["overall"] + [TYPE_LABELS[k].replace(" (", "\n(") for k in kinds]
    cosine = [report["cosine"]["top1"]] + [report["cosine"]["by_type"][k] for k in kinds]
    smart = [report["smart"]["top1"]] + [report["smart"]["by_type"][k] for k in kinds]
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=120)
    xs = range(len(labels))
    width = 0.38
    bars_c = ax.bar([x - width / 2 for x in xs], cosine, width, label="plain cosine", color="#9aa5b1")
    bars_s = ax.bar([x + width / 2 for x in xs], smart, width, label="smartvec", color="#2f6fb3")
    for bars in (bars_c, bars_s):
        for bar in bars:
            ax.annotate(f"{bar.get_height():.0%}", (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("top-1 accuracy")
    ax.set_title(f"Top-1 accuracy by question type (contradiction rate {report['dataset']['contradiction_rate']:.0%})")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def plot_sweep(report: dict, path: Path) -> bool:
    """Top-1 against the share of policies with an injected low-authority contradiction."""
    plt = _pyplot()
    if plt is None:
        return False
    rates = [s["rate"] * 100 for s in report["sweep"]]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    ax.plot(rates, [s["cosine"] for s in report["sweep"]], "o-", label="plain cosine", color="#9aa5b1")
    ax.plot(rates, [s["smart"] for s in report["sweep"]], "o-", label="smartvec", color="#2f6fb3")
    ax.axhline(0.85, ls="--", lw=0.8, color="#c0392b", label="target 85%")
    ax.set_xlabel("injected contradictions (% of policies)")
    ax.set_ylabel("top-1 accuracy")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(rates)
    ax.set_title("Top-1 accuracy under injected contradictions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True
