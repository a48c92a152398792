"""The one exception type of the data layer."""


class DataError(ValueError):
    """Bad or unavailable input data. The message names the thing and says what to do."""
