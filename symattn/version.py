"""The package's version, written once (pyproject.toml reads it from here).

>>> __version__.count(".") >= 1
True
"""

__version__ = "0.1.0"
