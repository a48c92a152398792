"""What every protocol writes: tables (csv, Markdown, LaTeX) with the notes on the data, figures and
run metadata, each written atomically and the same bytes on every rerun.

The public reporting layer below the protocols (:mod:`locproj.protocols`):

* :func:`write_table_files` writes one result table as ``<stem>.csv`` (long, with a ``data_note``
  column), ``<stem>.md`` and, when asked, ``<stem>.tex``; datasets with a note (how the public data
  differ from the paper's) are marked † in the Markdown and LaTeX tables, their notes below;
* :func:`frame_to_csv`, :func:`frame_to_markdown`, :func:`to_latex`, :func:`with_notes`,
  :func:`mark_noted` and :func:`notes_text` are its parts, for texts made of several tables;
* :func:`new_figure`, :func:`note_below` and :func:`save_figure` make figures without pyplot
  state or timestamps, and :func:`is_marker` and :func:`is_colour` check drawing options
  (matplotlib is imported only when a figure is made or an option checked);
* one style for every curve figure of the project: :func:`style_axes` (axis labels in words, a
  light grid), :func:`draw_curve` (a mean with a band of ± one std over the splits),
  :func:`draw_reference` (a baseline as a dashed level), :func:`method_style` (a method's colour),
  :func:`stopped_label` (why a curve ends early, in its legend entry) and :func:`legend_outside`
  (one legend per figure, beside the axes);
* :func:`write_metadata` records an experiment's configuration, seed, config hash and versions.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pandas as pd

from ..core.io import atomic_path, code_provenance, config_hash, package_versions


DAGGER = "†"


def ordered(values, order=None):
    present = list(dict.fromkeys(values))
    if order is None:
        return sorted(present)
    return [value for value in order if value in present]


def write_text(path, text: str) -> None:
    """Write UTF-8 text with ``\\n`` line endings atomically."""
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(text.encode("utf-8"))


def frame_to_csv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, lineterminator="\n", float_format="%.10g")
    return buffer.getvalue()


def frame_to_markdown(frame: pd.DataFrame) -> str:
    cells = frame.map(lambda value: "" if pd.isna(value) else str(value).replace("|", "\\|"))
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(row) + " |" for row in cells.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def tex_escape(text) -> str:
    text = str(text).replace("_", "\\_").replace("%", "\\%").replace("&", "\\&")
    return text.replace(DAGGER, "$^\\dagger$")


def to_latex(table: pd.DataFrame, second_column: str = "$m$") -> str:
    header = " & ".join(tex_escape(c) for c in ["Dataset", second_column, *table.columns[2:]]) + " \\\\"
    lines = ["\\begin{tabular}{lr" + "c" * (table.shape[1] - 2) + "}", "\\toprule", header]
    previous = None
    for row in table.itertuples(index=False):
        dataset, rest = row[0], [str(v) for v in row[1:]]
        if dataset != previous:
            lines.append("\\midrule")
        name = tex_escape(dataset) if dataset != previous else ""
        lines.append(" & ".join([name, *rest]) + " \\\\")
        previous = dataset
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def with_notes(frame: pd.DataFrame, notes) -> pd.DataFrame:
    """A ``data_note`` column: how a row's public data differ from the paper's ('' where they do not)."""
    return frame.assign(data_note=frame["dataset"].map(lambda d: (notes or {}).get(d, "")))


def mark_noted(frame: pd.DataFrame, notes) -> pd.DataFrame:
    return frame.assign(dataset=frame["dataset"].map(lambda d: f"{d}{DAGGER}" if d in (notes or {}) else d))


def notes_text(notes, datasets, style="plain") -> str:
    """The footnotes of the noted datasets among ``datasets``, to follow a Markdown or LaTeX table."""
    noted = [name for name in dict.fromkeys(datasets) if name in (notes or {})]
    if style == "tex":
        return "".join(f"\\par\\footnotesize $^\\dagger$ {tex_escape(n)}: {tex_escape(notes[n])}\n" for n in noted)
    return "".join(f"\n{DAGGER} {n}: {notes[n]}\n" for n in noted)



def write_table_files(out_dir, stem: str, long: pd.DataFrame, shown: pd.DataFrame | str | None = None, *,
                      latex: pd.DataFrame | str | None = None, notes=None, noted=None, caption: str = "",
                      second_column: str = "$m$", data_note: bool = True, footer: str = "",
                      latex_footer: str = "") -> list[Path]:
    """Write one result table: ``<stem>.csv``, ``<stem>.md`` and, with ``latex``, ``<stem>.tex``.

    Parameters
    ----------
    out_dir : path
    stem : str
    long : DataFrame
        The csv table, with a ``data_note`` column (:func:`with_notes`) unless ``data_note`` is False.
    shown : DataFrame or str, optional
        The Markdown table (default ``long``): a frame is written with its noted datasets marked †
        (:func:`mark_noted`); a str is written as it is. ``caption`` goes before it.
    latex : DataFrame or str, optional
        The LaTeX table: a wide frame (:func:`to_latex`, its second column headed
        ``second_column``), marked like ``shown``; or a ready text.
    notes : mapping, optional
        Dataset -> how its public data differ from the paper's; the notes of the datasets in
        ``noted`` (default: the ``dataset`` column of ``shown``) follow the Markdown and LaTeX tables.
    footer, latex_footer : str
        Text after the notes of the Markdown and the LaTeX table (the footnotes of failed cells).

    Returns
    -------
    list of Path
    """
    out_dir = Path(out_dir)
    shown = long if shown is None else shown
    if noted is None:
        noted = list(shown["dataset"])
    markdown = shown if isinstance(shown, str) else frame_to_markdown(mark_noted(shown, notes))
    texts = {f"{stem}.csv": frame_to_csv(with_notes(long, notes) if data_note else long),
             f"{stem}.md": caption + markdown + notes_text(notes, noted) + footer}
    if latex is not None:
        table = latex if isinstance(latex, str) else to_latex(mark_noted(latex, notes), second_column)
        texts[f"{stem}.tex"] = table + notes_text(notes, noted, style="tex") + latex_footer
    for name, text in texts.items():
        write_text(out_dir / name, text)
    return [out_dir / name for name in texts]


def write_metadata(path: Path, spec: dict, seed, failures=None, timing=None) -> None:
    """The experiment's configuration, seed, config hash, package versions and code (the git commit
    and its dirty flag, :func:`locproj.core.io.code_provenance`), as YAML; where a method failed
    under ``on_error: record``, its ``failed`` splits; and the ``timing`` of its jobs, measured and
    estimated (:func:`locproj.engine.job_costs.experiment_timing`)."""
    import yaml

    metadata = {"seed": seed, "config_hash": config_hash(spec), "versions": package_versions(),
                "code": code_provenance(), "experiment": spec}
    if failures:
        metadata["failed"] = list(failures)
    if timing is not None:
        metadata["timing"] = timing
    with atomic_path(path) as tmp:
        tmp.write_text(yaml.safe_dump(metadata, sort_keys=True, allow_unicode=True))


_METADATA = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Creator": None, "Date": None},
}


def new_figure(figsize):
    """A matplotlib Figure on an Agg canvas (no pyplot state, safe in any thread)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)
    return figure


def is_marker(value) -> bool:
    """Whether matplotlib can draw ``value`` as a marker (checking options before anything is drawn)."""
    from matplotlib.markers import MarkerStyle

    try:
        MarkerStyle(value)
    except (ValueError, TypeError):
        return False
    return True


def is_colour(value) -> bool:
    """Whether ``value`` is a matplotlib colour."""
    from matplotlib.colors import is_color_like

    return is_color_like(value)


def note_below(figure, text: str, width: int, bottom: float | None = None) -> None:
    """Write ``text`` (wrapped at ``width`` characters) under the axes, which are raised to ``bottom``
    (default: room for the x axis and the note's lines)."""
    text = textwrap.fill(text, width)
    if bottom is None:
        bottom = (0.6 + 0.16 * (text.count("\n") + 1)) / figure.get_figheight()
    figure.subplots_adjust(bottom=bottom)
    figure.text(0.01, 0.01, text, fontsize="small")


def save_figure(figure, stem, formats=("png", "pdf"), dpi=150, tight=False) -> list[Path]:
    """Save ``figure`` as ``<stem>.<format>`` for each format, atomically and without timestamps or
    version strings (fixed SVG hash salt), so that reruns give the same bytes; ``tight``: the
    canvas grows to hold what lies outside the axes (:func:`legend_outside`)."""
    import matplotlib

    written = []
    extent = {"bbox_inches": "tight", "pad_inches": 0.08} if tight else {}
    with matplotlib.rc_context({"svg.hashsalt": "locproj"}):
        for fmt in formats:
            path = Path(f"{stem}.{fmt}")
            with atomic_path(path) as tmp:
                figure.savefig(tmp, format=fmt, dpi=dpi, metadata=_METADATA.get(fmt), **extent)
            written.append(path)
    return written


# --------------------------------------------------------------------------- one style for every curve

BAND_ALPHA = 0.15  # the ± one std band under a mean curve
REFERENCE_COLOUR = "0.3"


def style_axes(ax, *, xlabel: str, ylabel: str, title: str | None = None) -> None:
    """Axis labels in words ("number of projections p", "test error (%)"), a title, a light grid."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(alpha=0.3)


def draw_curve(ax, x, mean, std=None, *, label: str, **line_options):
    """The mean over splits as a line and, with ``std``, a band of ± one std in the line's colour (an
    error bar for a single point, where a band has no width); returns the line."""
    import numpy as np

    x, mean = np.asarray(x, dtype=float), np.asarray(mean, dtype=float)
    line = ax.plot(x, mean, label=label, **{"linewidth": 1, **line_options})[0]
    if std is not None:
        std = np.nan_to_num(np.asarray(std, dtype=float))
        if len(x) == 1:
            ax.errorbar(x, mean, yerr=std, color=line.get_color(), linewidth=1, capsize=3)
        else:
            ax.fill_between(x, mean - std, mean + std, color=line.get_color(), alpha=BAND_ALPHA, linewidth=0)
    return line


def draw_reference(ax, level: float, *, label: str, std: float | None = None):
    """A baseline (raw 1-NN, the protocol's reference) as a dashed level across the axes, with a band
    of ± one std when given; returns the line."""
    line = ax.axhline(level, color=REFERENCE_COLOUR, linestyle="--", linewidth=1, label=label)
    if std is not None and std > 0:
        ax.axhspan(level - std, level + std, color=REFERENCE_COLOUR, alpha=0.08, linewidth=0)
    return line


def stopped_label(label: str, last, reason: str | None, symbol: str = "p") -> str:
    """A legend entry that says why its curve ends early: ``LDA (ends at p = 14: c − 1)``; ``last``
    a number or a text (``"59, 83"``: one per panel); ``symbol`` is the x axis' letter (``r`` gives
    ``ends at r = 5``)."""
    shown = f"{last:g}" if isinstance(last, (int, float)) else last
    return f"{label} (ends at {symbol} = {shown}: {reason})" if reason else label


def method_style(index: int) -> dict:
    """The colour (and, past ten methods, dashes) of the ``index``-th method of a figure, so that
    each method looks the same in every panel and no two methods alike."""
    import matplotlib

    colours = matplotlib.colormaps["tab10"].colors
    return {"color": colours[index % len(colours)], "linestyle": "-" if index < len(colours) else "-."}


def legend_outside(figure, axes) -> None:
    """One legend for the figure, right of its axes, so that it covers no curve: every labelled
    line of ``axes``, each label once, in drawing order (save with ``tight=True``)."""
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    if entries:
        figure.legend(list(entries.values()), list(entries), loc="center left", bbox_to_anchor=(1.0, 0.5),
                      fontsize="small", frameon=False)
