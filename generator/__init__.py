"""pnp: turn card data into print-and-play kits."""

__version__ = "0.2.0"

import os as _os

# pydantic looks for plugins (every installed distribution's entry points) the first time a
# model validates, 30 ms of each run; pnp uses none.
_os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
