"""Benchmark reports: markdown tables for people and docs/results.md, PNG plots, JSON files for scripts.

Plots need matplotlib (the ``bench`` extra); without it the reports are written without
them and the caller is told so.
"""

from __future__ import annotations

import json
from pathlib import Path

from .generator import COLLOQUIAL_PHRASES, DOCUMENTED_PHRASES

TYPE_LABELS = {
    "current": "current value",
    "time_point": "time point, date in words",
    "as_of": "time point, --as-of",
    "stable": "stable fact, no competitor",
    "lexical": "exact identifier",
    "long_note": "long note, near miss beside it",
}
COLUMNS = (
    ("labelled", "cosine"),
    ("labelled", "cosine_current"),
    ("labelled", "smart"),
    ("plain", "cosine"),
    ("plain", "cosine_current"),
    ("plain", "smart"),
)
MODE_LABELS = {"cosine": "cosine, all versions", "cosine_current": "plain RAG, current text", "smart": "smartvec"}


def num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _block(report: dict, style: str, mode: str) -> dict:
    return report[mode] if style == "labelled" else report["plain"][mode]


def accuracy_markdown(report: dict) -> str:
    data, cal = report["dataset"], report["calibration"]
    styles = data["styles"]
    lines = [
        f"Generated vault (seed {data['seed']}): {data['questions']} questions; labelled style "
        f"{styles['labelled']['notes']} notes and "
        f"{styles['labelled']['passages_stored']} stored passages, plain style {styles['plain']['notes']} notes and "
        f"{styles['plain']['passages_stored']} stored passages; rumour rate {data['contradiction_rate']:.0%}; "
        "history replayed as "
        f"{styles['labelled']['index_runs']} days of `index` + `consolidate`. Confidence fitted first on seed "
        f"{cal['fit_seed']} of the "
        f"calibration catalogue (shared topics {cal['shared_topics']}, shared templates {cal['shared_templates']}, "
        f"shared question texts {cal['shared_question_texts']}).",
        "",
        "| metric | " + " | ".join(f"{style}: {MODE_LABELS[mode]}" for style, mode in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]

    def row(label: str, read, fmt=pct) -> None:
        lines.append(
            f"| {label} | " + " | ".join(fmt(read(_block(report, style, mode))) for style, mode in COLUMNS) + " |"
        )

    smart = report["smart"]
    row("top-1 accuracy", lambda b: b["top1"])
    row("top-3 accuracy", lambda b: b["top3"])
    row("top-5 accuracy (what reordering the first five could reach)", lambda b: b.get("top5"))
    for kind, label in TYPE_LABELS.items():
        row(f"top-1, {label} (n={smart['n_by_type'].get(kind, 0)})", lambda b, k=kind: b["by_type"].get(k))
        if kind == "time_point":
            counts = data.get("time_points_by_phrase", {})
            documented = sum(counts.get(k, 0) for k in DOCUMENTED_PHRASES)
            colloquial = sum(counts.get(k, 0) for k in COLLOQUIAL_PHRASES)
            row(
                f"&nbsp;&nbsp;phrasings the parser documents (n={documented})",
                lambda b: b["time_point_by_phrase"]["documented"],
            )
            row(
                f"&nbsp;&nbsp;other phrasings people use (n={colloquial})",
                lambda b: b["time_point_by_phrase"]["colloquial"],
            )
    row("first hit states some version of the answer", lambda b: b["passage_top1"])
    row("first hit is from the answer's note", lambda b: b["note_top1"])
    row("stale-answer rate", lambda b: b["stale_rate"])
    row("first hit is a rumour", lambda b: b["contradiction_rate"])
    row("ECE of `confidence` (10 bins)", lambda b: b["ece"], lambda v: num(v, ".3f"))
    lines.append("")

    lab, pla = report["contradictions"], report["contradictions"]["plain"]
    lines += [
        "| `contradicts` edges after `consolidate` | labelled | plain |",
        "|---|---:|---:|",
        f"| precision | {pct(lab['precision'])} | {pct(pla['precision'])} |",
        f"| recall | {pct(lab['recall'])} | {pct(pla['recall'])} |",
        f"| flagged / known pairs | {lab['found']} / {lab['expected']} | {pla['found']} / {pla['expected']} |",
    ]
    for kind in sorted(set(lab["recall_by_kind"]) | set(pla["recall_by_kind"])):

        def cell(c: dict, kind: str = kind) -> str:
            if kind not in c["recall_by_kind"]:
                return "-"
            return f"{c['recall_by_kind'][kind]['found']} of {c['recall_by_kind'][kind]['expected']}"

        lines.append(f"| found: {kind.replace('_', ' ')} | {cell(lab)} | {cell(pla)} |")
    for kind in sorted(set(lab["false_positives_by_kind"]) | set(pla["false_positives_by_kind"])):
        lines.append(
            f"| wrongly flagged: {kind.replace('_', ' ')} | {lab['false_positives_by_kind'].get(kind, 0)} | "
            f"{pla['false_positives_by_kind'].get(kind, 0)} |"
        )
    lines.append("")
    if "judge" in lab and "judge" in pla:
        judges = (lab["judge"], pla["judge"])
        lines += [
            "| the same-thing judge with every pair of conflicting values compared (no candidate search) | labelled "
            "| plain |",
            "|---|---:|---:|",
            "| known value contradictions / note pairs compared | "
            + " | ".join(f"{j['value_pairs_known']} / {j['compared_pairs']}" for j in judges)
            + " |",
        ]
        for points in zip(*(j["curve"] for j in judges), strict=False):
            lines.append(
                f"| closeness >= {points[0]['threshold']:.2f}: precision, recall | "
                + " | ".join(f"{pct(p['precision'])}, {pct(p['recall'])}" for p in points)
                + " |"
            )
        lines.append(
            f"| best recall at precision >= {pct(judges[0]['precision_bar'])} | "
            + " | ".join(pct(j["best_recall_at_bar"]) for j in judges)
            + " |"
        )
        lines.append("")

    off_topic = report.get("off_topic") or {}
    if all(off_topic.get(style) for style in ("labelled", "plain")):
        lines += [
            "| questions nothing in the vault answers (the other catalogue's) | labelled | plain |",
            "|---|---:|---:|",
        ]
        for mode in off_topic["labelled"]:
            cells = [off_topic[style][mode] for style in ("labelled", "plain")]
            lines.append(
                f"| {MODE_LABELS[mode]}: answered anyway | "
                + " | ".join(f"{c['answered']} of {c['asked']}" for c in cells)
                + " |"
            )
            lines.append(
                f"| {MODE_LABELS[mode]}: mean confidence of that first hit | "
                + " | ".join(pct(c["mean_top_confidence"]) for c in cells)
                + " |"
            )
        if "ece_with_answerable" in off_topic["labelled"]["smart"]:
            cells = [off_topic[style]["smart"]["ece_with_answerable"] for style in ("labelled", "plain")]
            lines.append(
                "| smartvec: ECE over these and the benchmark's questions | "
                + " | ".join(num(c, ".3f") for c in cells)
                + " |"
            )
        lines.append("")

    sweep = report["sweep"]
    lines += [
        "| rumour rate | " + " | ".join(f"{s['rate']:.0%}" for s in sweep) + " |",
        "|---|" + "---:|" * len(sweep),
        "| cosine top-1, labelled | " + " | ".join(pct(s["cosine"]) for s in sweep) + " |",
        "| smartvec top-1, labelled | " + " | ".join(pct(s["smart"]) for s in sweep) + " |",
        "| cosine top-1, plain | " + " | ".join(pct(s["plain_cosine"]) for s in sweep) + " |",
        "| smartvec top-1, plain | " + " | ".join(pct(s["plain_smart"]) for s in sweep) + " |",
        "",
    ]
    fitted, shipped = cal["fitted"], cal["shipped"]
    lines.append(
        f"Confidence: fitted ({', '.join(fitted)}) = ({', '.join(str(v) for v in fitted.values())}) on "
        f"{cal['fit_samples']} hits of the "
        f"calibration vault; ECE with the shipped parameters ({', '.join(str(v) for v in shipped.values())}) instead: "
        f"{cal['ece_shipped']['labelled']:.3f} labelled, "
        f"{cal['ece_shipped']['plain']:.3f} plain."
    )
    lines.append("")
    realistic, short = report["reembed"]["realistic"], report["reembed"]["short_notes"]
    lines.append(
        f"Re-embedding after single-word edits of {realistic['notes_edited']} notes of realistic length "
        f"({realistic['distribution']}, "
        f"{realistic['passages_per_note']} per edited note): {realistic['chunks_embedded']} passages embedded "
        "instead of "
        f"{realistic['whole_note_chunks']} for whole-note re-embedding: **{realistic['saved']:.1%} saved**. On "
        f"{short['notes_edited']} of the "
        f"benchmark's short notes ({short['passages_per_note']} passages per note): {short['chunks_embedded']} "
        "instead of "
        f"{short['whole_note_chunks']}, {short['saved']:.1%} saved."
    )
    return "\n".join(lines) + "\n"


def targets_markdown(rows: list[dict]) -> str:
    lines = ["| target | measured | met |", "|---|---:|:---:|"]
    for row in rows:
        value, target = row["value"], row["target"]
        if "unit" in row:
            shown, goal = (
                ("-" if value is None else f"{value:g} {row['unit']}".strip()),
                f"{target:g} {row['unit']}".strip(),
            )
        elif "/" in row["name"]:
            shown, goal = f"{value:.2f}x", f"{target}x"
        elif row["name"].startswith("ECE"):
            shown, goal = f"{value:.3f}", f"{target}"
        else:
            shown, goal = pct(value), pct(target)
        met = "-" if row["met"] is None else ("yes" if row["met"] else "**no**")
        lines.append(f"| {row['name']} {row['op']} {goal} | {shown} | {met} |")
    return "\n".join(lines) + "\n"


def at_load(load: float | None) -> str:
    """`` (load 1.9)``: the 1-minute load average when a batch of timed calls began (results before it was
    recorded have none)."""
    return "" if load is None else f" (load {load:.1f})"


def hardware_rows(r: dict) -> list[str]:
    """The machine's limit for the encoder and the shares of it reached (absent from reports made before)."""
    if r.get("hardware_fp32_gflops") is None:
        return []
    precision = r.get("precision", "fp32")
    own = r.get("hardware_limit_gflops")
    return [
        f"| the machine's limit for the encoder's products ({r['hardware_threads']} threads): fp32 / int8 | "
        f"{r['hardware_fp32_gflops']:.1f} GFLOP/s / {r['hardware_int8_gops']:.1f} GOP/s |",
        *(
            [f"| the limit for the int8 graph's mix of products | {own:.1f} GOP/s |"]
            if precision == "int8" and own
            else []
        ),
        *(
            [f"| the machine's limit for the encoder's products in bf16 (torch) | {own:.1f} GFLOP/s |"]
            if precision == "bf16" and own
            else []
        ),
        f"| embedding alone ({r['embedding_tokens_mean']:.0f} tokens a passage): throughput, share of the "
        f"{precision} limit | {r['embedding_passages_per_s']:.1f} passages/s, {r['embedding_share_of_limit']:.0%} |",
        f"| first index, share of the {precision} limit | {r['first_index_share_of_limit']:.0%} |",
        *(
            [f"| first index in fp32, same run: share of the fp32 limit | {r['first_index_fp32_share_of_limit']:.0%} |"]
            if r.get("first_index_fp32_share_of_limit") is not None
            else []
        ),
    ]


def perf_markdown(perf: dict) -> str:
    m, r = perf["machine"], perf["results"]
    load = m.get("load_average")
    shared = f" Load average before the run: {load[0]:.1f} (1 min) on {m['cpus']} cores." if load else ""
    lines = [
        f"{perf['notes']:,} notes, {r['passages']:,} passages ({r['passages_per_note']} per note); {m['cpu']} "
        f"({m['cpus']} cores), "
        f"{m['memory_gb']} GB RAM, {m['platform']}, Python {m['python']}, {m['embedder']}.{shared}",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| first index: throughput ({r.get('precision', 'fp32')}) | {r['first_index_passages_per_s']:.1f} passages/s "
        f"({r['first_index_s']:.1f} s) |",
        *(
            [
                f"| first index in fp32, same run: throughput, speed-up | {r['first_index_fp32_passages_per_s']:.1f} "
                f"passages/s, {r['first_index_speedup']:.2f}x |"
            ]
            if r.get("first_index_speedup")
            else []
        ),
        *hardware_rows(r),
        f"| no-change refresh, in process | {r['nochange_refresh_s']:.3f} s |",
        f"| no-change refresh, cold CLI call | {num(r['nochange_refresh_cli_s'], '.2f')} s |",
        f"| one-note edit refresh, warm model | {r['edit_refresh_s']:.3f} s (max {r['edit_refresh_max_s']:.3f} s) |",
        f"| re-embedding saved by those single-word edits | {r['edit_reembed_saved']:.1%} |",
        f"| query latency in process, p50 / p95 | {r['query_p50_ms']:.1f} / {r['query_p95_ms']:.1f} ms |",
        f"| of which search without embedding, p50 / p95 | {r['search_p50_ms']:.1f} / {r['search_p95_ms']:.1f} ms |",
        f"| query as a cold CLI call, p50 / p95 | {num(r['query_cli_p50_s'], '.2f')} / "
        f"{num(r['query_cli_p95_s'], '.2f')} s"
        f"{at_load(r.get('query_cli_load'))} |",
        "| query answered by the watch daemon, whole CLI process, p50 / p95 | "
        f"{num(r.get('query_warm_p50_s'), '.3f')} / "
        f"{num(r.get('query_warm_p95_s'), '.3f')} s{at_load(r.get('query_warm_load'))} |",
        f"| `smartvec --help`, p50 / p95 | {num(r.get('help_cli_p50_s'), '.2f')} / "
        f"{num(r.get('help_cli_p95_s'), '.2f')} s"
        f"{at_load(r.get('help_cli_load'))} |",
        "| `smartvec mcp`: `initialize` answered / first search answered | "
        f"{num(r.get('mcp_initialize_p50_s'), '.2f')} / "
        f"{num(r.get('mcp_first_search_p50_s'), '.2f')} s{at_load(r.get('mcp_load'))} |",
        f"| model import and load | {r['model_load_s']:.1f} s |",
        *(
            [f"| installed size of the model's package | {m['model_package_mb']:.0f} MB |"]
            if m.get("model_package_mb")
            else []
        ),
        f"| peak memory: benchmark process / cold CLI query / cold no-change refresh | {r['peak_rss_mb']:.0f} / "
        f"{num(r['query_cli_peak_rss_mb'], '.0f')} / {num(r['nochange_refresh_cli_peak_rss_mb'], '.0f')} MB |",
        f"| index folder size | {r['index_mb']:.1f} MB |",
    ]
    recall = r.get("ann_recall") or []
    if recall:
        lines += [
            "",
            "| passages (real vectors + perturbed copies) | ANN recall@50 (min) | ef | ANN query p50 / p95 | exact "
            "query p50 / p95 "
            "| graph build | smart mode's candidates |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        lines += [
            f"| {row['passages']:,} | {row['ann_recall_at_50']:.4f} ({row['ann_recall_at_50_min']:.2f}) | "
            f"{row['ef']} | "
            f"{row['ann_ms_p50']:.1f} / {row['ann_ms_p95']:.1f} ms | {row['exact_ms_p50']:.1f} / "
            f"{row['exact_ms_p95']:.1f} ms | "
            f"{row['build_s']:.0f} s | {row['smart_candidates']} |"
            for row in recall
        ]
    return "\n".join(lines) + "\n"


def results_markdown(accuracy: dict | None, perfs: list[dict], command: str) -> str:
    """docs/results.md: the command, then every table."""
    parts = ["# Latest results\n", f"Produced by `{command}`.\n"]
    if accuracy:
        parts += ["## Accuracy\n", accuracy_markdown(accuracy), targets_markdown(accuracy["targets"])]
    for perf in perfs:
        store = " on PostgreSQL" if perf["results"].get("store") == "postgresql" else ""
        parts += [
            f"## Speed, {perf['notes']:,} notes, {perf['machine'].get('embedder', '')}{store}\n",
            perf_markdown(perf),
            targets_markdown(perf["targets"]),
        ]
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
    """Top-1 per question type (and overall) for each baseline, labelled vault beside plain vault."""
    plt = _pyplot()
    if plt is None:
        return False
    kinds = list(TYPE_LABELS)
    labels = ["overall"] + [TYPE_LABELS[k].replace(", ", ",\n") for k in kinds]
    colours = {"cosine": "#c5ccd3", "cosine_current": "#8a96a3", "smart": "#2f6fb3"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4), dpi=120, sharey=True)
    width = 0.27
    for ax, style in zip(axes, ("labelled", "plain"), strict=False):
        xs = range(len(labels))
        for offset, mode in zip((-width, 0.0, width), ("cosine", "cosine_current", "smart"), strict=False):
            block = _block(report, style, mode)
            values = [block["top1"]] + [block["by_type"][k] for k in kinds]
            bars = ax.bar([x + offset for x in xs], values, width, label=MODE_LABELS[mode], color=colours[mode])
            for bar in bars:
                ax.annotate(
                    f"{bar.get_height():.0%}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                )
        ax.set_xticks(list(xs), labels, fontsize=7)
        ax.set_ylim(0, 1.1)
        ax.set_title(f"{style} vault")
    axes[0].set_ylabel("top-1 accuracy")
    axes[0].legend(loc="upper left", fontsize=7)
    fig.suptitle(f"Top-1 accuracy by question type (rumour rate {report['dataset']['contradiction_rate']:.0%})")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def plot_sweep(report: dict, path: Path) -> bool:
    """Top-1 against the share of policies with an injected rumour, labelled and plain vaults."""
    plt = _pyplot()
    if plt is None:
        return False
    rates = [s["rate"] * 100 for s in report["sweep"]]
    fig, ax = plt.subplots(figsize=(6.5, 4), dpi=120)
    for key, label, style in (
        ("cosine", "cosine, labelled", "o--"),
        ("plain_cosine", "cosine, plain", "s--"),
        ("smart", "smartvec, labelled", "o-"),
        ("plain_smart", "smartvec, plain", "s-"),
    ):
        ax.plot(
            rates,
            [s[key] for s in report["sweep"]],
            style,
            label=label,
            color="#2f6fb3" if "smart" in key else "#8a96a3",
        )
    ax.axhline(0.85, ls=":", lw=0.8, color="#c0392b", label="target 85%")
    ax.set_xlabel("injected rumours (% of policies)")
    ax.set_ylabel("top-1 accuracy")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(rates)
    ax.set_title("Top-1 accuracy under injected rumours")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True
