"""pnp: turn card data into print-and-play kits."""

__version__ = "0.1.0"
