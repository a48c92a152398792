import numpy as np

from locproj.core._memo import LastInput, forget, remembered


def test_values_survive_only_identical_inputs():
    memo = LastInput()
    X = np.arange(6.0).reshape(2, 3)
    remembered(memo.values_for(X), "sum", X.sum)
    assert memo.values_for(X.copy()) == {"sum": 15.0}          # equal bits: kept
    X[0, 0] = -0.0                                             # 0.0 -> -0.0 in place
    assert memo.values_for(X) == {}                            # the copy noticed the change
    remembered(memo.values_for(X), "sum", X.sum)
    assert memo.values_for(X.astype(np.float32)) == {}         # other dtype
    assert memo.values_for(X, np.array(["a", "b"])) == {}      # other number of inputs
    remembered(memo.values_for(X, np.array(["a", "b"])), "n", lambda: 2)
    assert memo.values_for(X, np.array(["a", "c"])) == {}      # other labels


def test_remembered_computes_once():
    calls = []
    memo = {}
    for _ in range(3):
        assert remembered(memo, "x", lambda: calls.append(1) or 7) == 7
    assert calls == [1]


def test_forget_empties_every_memo():
    first, second = LastInput(), LastInput()
    X = np.ones(3)
    remembered(first.values_for(X), "a", lambda: 1)
    remembered(second.values_for(X), "b", lambda: 2)
    forget()
    assert len(first) == 0 and len(second) == 0
