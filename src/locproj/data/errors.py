"""The one exception type of the data layer."""

from ..errors import UserError


class DataError(UserError):
    """Bad or unavailable input data. The message names the thing and says what to do."""
