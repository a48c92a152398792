"""What the protocols write: tables (CSV, Markdown, LaTeX) and figures, error tables, the
comparison with a paper's published numbers and its fidelity page.

Above the engine (:mod:`locproj.engine`), below the protocols (:mod:`locproj.protocols`).
"""
