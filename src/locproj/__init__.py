"""locproj: local linear projections for classification, and the pipeline that regenerates their papers."""

__version__ = "0.1.0"
