"""The engine of an experiment: the method registry and own methods, the declared neighbour
counts, model selection by cross-validation, the result file format, job costs, failures and the
helpers that read an experiment's config.

Above :mod:`locproj.core`, :mod:`locproj.methods` and :mod:`locproj.data`; below the reports and
the protocols.
"""
