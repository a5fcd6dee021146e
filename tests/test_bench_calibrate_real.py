"""The real-set calibration script (bench.calibrate_real): what it fits on, what it measures, how it refuses."""

import pytest

from smartvec_cli.bench.calibrate_real import first_hits_moved, fit, main, measure, samples
from smartvec_cli.memory.scoring import Calibration


def hit(confidence, answers, passage="a#1", features=(0.5,) * 8):
    return {
        "features": features,
        "confidence": confidence,
        "answers": answers,
        "passage": passage,
        "path": "a.md",
        "weak": False,
    }


def row(hits, nonsense=False, answerable=True):
    return {"corpus": "c", "id": "q", "nonsense": nonsense, "answerable": answerable and not nonsense, "hits": hits}


def test_measure_reads_every_hit_the_first_hit_and_the_nonsense_questions_apart():
    rows = [
        row([hit(0.9, True), hit(0.1, False)]),
        row([hit(0.7, False), hit(0.3, True)]),
        row([hit(0.25, False)], nonsense=True),
    ]
    found = measure(rows)
    assert (found["questions"], found["hits"], found["answering"]) == (2, 4, 2)
    assert found["ece_first_hit"] == pytest.approx((abs(1 - 0.9) + abs(0 - 0.7)) / 2)
    assert found["nonsense_first_max"] == 0.25 and found["top1"] == 0.5


def test_the_fit_leaves_the_nonsense_questions_out_and_gives_every_parameter():
    rows = [row([hit(0.5, i % 3 == 0, features=(i / 10, 0.1, 0.8, 0.64, 0.0, 0.5, 0.8, 2.0))]) for i in range(12)]
    nonsense = [row([hit(0.5, False, features=(0.9,) * 8)], nonsense=True)]
    assert len(samples(rows + nonsense)) == 12
    fitted = fit(rows + nonsense)
    assert isinstance(fitted, Calibration) and fitted == fit(rows)


def test_a_moved_first_hit_is_counted_by_its_passage():
    before = [row([hit(0.9, True, "a#1")]), row([hit(0.9, True, "b#1")])]
    after = [row([hit(0.5, True, "a#1")]), row([hit(0.9, True, "b#2")])]
    assert first_hits_moved(before, after) == 1


def test_a_corpus_not_prepared_is_one_line_and_exit_1(tmp_path, capsys):
    assert main(["--work", str(tmp_path), "tldr"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no index of tldr") and "--index-only" in err[0]


def test_the_noise_floor_is_what_calibrated_confidences_score_by_chance():
    from smartvec_cli.bench.calibrate_real import ece_noise_floor

    mean, high = ece_noise_floor([0.2] * 300)
    assert 0.0 < mean < high < 0.1
    assert ece_noise_floor([0.0] * 50) == (0.0, 0.0) and ece_noise_floor([0.2] * 300) == (mean, high)
    assert ece_noise_floor([0.2] * 3000)[0] < mean / 2, "ten times the hits, a third of the chance error"
