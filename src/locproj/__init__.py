"""locproj: local linear projections for classification, and the pipeline that regenerates their papers."""

#: The version, in this one place: the package metadata reads it (pyproject.toml) and every result's
#: provenance records it (``version_locproj``).
__version__ = "0.1.0"
