"""The numerical core: neighbour and class graphs, reconstruction weights, the generalized
symmetric eigensolver and its linear algebra, the 1-NN and nearest-mean evaluation, and atomic I/O.

The lowest layer of locproj: it imports nothing of locproj but :mod:`locproj.errors`.
"""
