"""Each built-in model's cosines are read on MiniLM's scale before the relevance model weighs them."""

import pytest

from smartvec_cli.embed import COSINE_SCALES, MINILM, MODEL_NAME, MULTILINGUAL, cosine_map
from smartvec_cli.memory.relevance import FEATURES, Evidence, feature_rows


def mapped(fingerprint, cosine):
    offset, slope = cosine_map(fingerprint)
    return offset + slope * cosine


def test_multilingual_e5_s_crowd_and_best_land_on_minilm_s():
    fingerprint = "multilingual-e5-small@0123abcd+int8"
    (ref_crowd, ref_best), (crowd, best) = COSINE_SCALES[MINILM], COSINE_SCALES[MULTILINGUAL]
    assert mapped(fingerprint, crowd) == pytest.approx(ref_crowd)
    assert mapped(fingerprint, best) == pytest.approx(ref_best)
    assert mapped(fingerprint, 0.82) < ref_crowd < mapped(fingerprint, 0.88) < ref_best


@pytest.mark.parametrize("fingerprint", [f"{MODEL_NAME}@abc+int8", "fake@1", None])
def test_minilm_and_models_of_unknown_geometry_are_read_as_they_are(fingerprint):
    assert cosine_map(fingerprint) == (0.0, 1.0)


def test_the_same_question_reads_the_same_under_either_model_once_mapped():
    """E5's candidates a few hundredths apart would fall under the least cosine span and look alike; mapped, they
    are as far apart as MiniLM's candidates for the same question."""
    e5 = [0.90, 0.87, 0.856, 0.85, 0.845]
    offset, slope = cosine_map("multilingual-e5-small@0123abcd")
    minilm = [offset + slope * c for c in e5]
    rows = feature_rows("q", [Evidence(note=i, cosine=c) for i, c in enumerate(minilm)])
    raw = feature_rows("q", [Evidence(note=i, cosine=c) for i, c in enumerate(e5)])
    k = FEATURES.index("cosine_norm")
    assert rows[0][k] == pytest.approx((minilm[0] - minilm[2]) / (minilm[0] - minilm[2]))
    assert raw[0][k] < 0.5 < rows[0][k]
