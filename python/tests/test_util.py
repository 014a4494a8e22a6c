"""Pure-Python helpers (also run without torch by the host ctest)."""

import pytest

from gnndirect_torch import _util


def test_placements():
    assert _util.normalize_placement("Managed") == "managed_host"
    assert _util.normalize_placement(" pinned ") == "pinned"
    with pytest.raises(ValueError, match="registered"):
        _util.normalize_placement("gpu")
    with pytest.raises(TypeError):
        _util.normalize_placement(3)


def test_cache_bytes():
    assert _util.cache_bytes_for(100, 40) == 0
    assert _util.cache_bytes_for(100, 40, cache_bytes=1000) == 1000
    assert _util.cache_bytes_for(100, 40, cache_bytes=1010) == 1000
    assert _util.cache_bytes_for(100, 40, cache_bytes=10**9) == 4000
    assert _util.cache_bytes_for(100, 40, cache_fraction=0.25) == 1000
    with pytest.raises(ValueError):
        _util.cache_bytes_for(100, 40, cache_bytes=1, cache_fraction=0.1)
    with pytest.raises(ValueError):
        _util.cache_bytes_for(100, 40, cache_fraction=1.5)


def test_counts_round_trip():
    nodes, edges = _util.pyg_counts(4, [10, 25], [12, 30])
    assert nodes == [4, 6, 15] and edges == [12, 30]
    slices = _util.layer_slices(nodes, edges)
    assert slices == [{"num_dst": 4, "num_src": 10, "edge_begin": 0, "edge_end": 12},
                      {"num_dst": 10, "num_src": 25, "edge_begin": 12, "edge_end": 42}]
    with pytest.raises(ValueError):
        _util.pyg_counts(4, [3], [1])


def test_misc():
    assert _util.num_batches(10, 3) == 4 and _util.num_batches(10, 3, True) == 3
    assert _util.check_fanouts((15, 10, 5)) == [15, 10, 5]
    with pytest.raises(ValueError):
        _util.check_fanouts([])
    assert _util.memory_error_message("x [gnndirect.allocation_error] boom") == "boom"
    assert _util.memory_error_message("other") is None
    shape = _util.products_shape(1.0)
    assert shape["num_nodes"] == 2_449_029 and shape["num_classes"] == 47
    assert "a" in _util.format_table(["a", "b"], [[1, 2.5]])


def test_papers100m_shape():
    full = _util.papers100m_shape()
    assert (full["num_nodes"], full["num_edges"]) == (111_059_956, 1_615_685_872)
    assert (full["num_features"], full["num_classes"]) == (128, 172)
    assert full["num_train"] == 1_207_179 and full["num_val"] == 125_265 and full["num_test"] == 200_000
    quarter = _util.papers100m_shape(0.25)
    assert quarter["num_nodes"] == 27_764_989 and quarter["num_train"] == 301_794
    assert sum(quarter[k] for k in ("num_train", "num_val", "num_test")) <= quarter["num_nodes"]
    assert set(_util.SHAPES) == {"products", "papers100m", "reddit", "twitter"}
    with pytest.raises(ValueError):
        _util.papers100m_shape(-1)


def test_reddit_and_twitter_shapes():
    reddit = _util.reddit_shape()
    assert (reddit["num_nodes"], reddit["num_edges"]) == (232_965, 114_615_892)
    assert (reddit["num_features"], reddit["num_classes"]) == (602, 41)
    assert (reddit["num_train"], reddit["num_val"], reddit["num_test"]) == (153_431, 23_831, 55_703)
    assert "degree_sigma" not in reddit  # the generator's default spread
    twitter = _util.twitter_shape(0.25)
    assert twitter["num_nodes"] == 10_413_058 and twitter["num_edges"] == 367_091_296
    assert twitter["num_features"] == 343 and twitter["degree_sigma"] == 2.0
    assert twitter["num_train"] == 1_041_305 and twitter["num_test"] == 200_000
    with pytest.raises(ValueError):
        _util.twitter_shape(0)


def test_sweep_warmup():
    # two rounds of 16 workers x 2 prefetched batches, not the 8 asked for
    assert _util.sweep_warmup(8, 48, 16, 193) == 64
    assert _util.sweep_warmup(8, 48, 0, 193) == 8
    assert _util.sweep_warmup(8, 48, 4, 193, prefetch_factor=4) == 32
    assert _util.sweep_warmup(8, 48, 16, 100) == 52  # warm-up + window fit in one epoch
    assert _util.sweep_warmup(8, 48, 16, 40) == 0
