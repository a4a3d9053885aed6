"""Documented limits on the work symattn will do.

Each limit has a clear error past it instead of a hang. The README's "Limits"
table lists the same numbers; this module is the one source.

>>> MAX_TOKENS
2048
"""

#: rows of any matrix (tokens, queries or keys)
MAX_TOKENS = 2048
#: columns of any matrix (embedding, key, value or model dimension)
MAX_DIM = 1024
#: attention heads
MAX_HEADS = 64
#: significant digits that can be asked for
MAX_DIGITS = 100_000
#: printed entries times digits per request (about a minute of work at most)
MAX_DIGIT_WORK = 50_000_000
#: characters in one number or expression written in a file
MAX_TEXT = 1000
#: decimal exponent of a number written in a file (1e300 is allowed, 1e301 is not)
MAX_EXPONENT = 300
#: nesting depth of an expression
MAX_DEPTH = 40
#: size of a symbolic example (any matrix dimension) when its entries are symbols
MAX_SYMBOLIC_DIM = 12
#: keys per row up to which JSON includes exact closed forms by default
JSON_EXACT_MAX_KEYS = 16
#: entries per step up to which JSON includes exact closed forms by default
JSON_EXACT_MAX_ENTRIES = 1024
#: entries (queries x keys x d_v) up to which the `weighted` step is shown by default
WEIGHTED_DEFAULT_MAX = 64
#: working precision (bits) past which certification gives up
MAX_PRECISION_BITS = 400_000
#: working precision (bits) past which a check verdict is reported undecided
MAX_VERDICT_PRECISION_BITS = 65_536
#: exponentials in one closed form up to which exact ties and zeros are decided symbolically
EXACT_CHECK_MAX_TERMS = 64
#: queries (rows) or keys (columns) a heatmap shows at most
HEATMAP_MAX_SIDE = 128
#: queries or keys up to which a heatmap prints each cell's decimal
HEATMAP_ANNOTATE_MAX = 24
#: bytes in a page given to `symattn import` / `check PAGE` (Markdown, HTML, LaTeX, notebook, text)
MAX_PAGE_BYTES = 8_000_000
#: characters of text read from one page (a notebook's text without its images)
MAX_PAGE_TEXT = 2_000_000
#: steps of work to find the blocks of one page (bracket groups, tables, LaTeX matrices)
MAX_PAGE_SCAN = 50_000_000
#: worked examples imported from one page
MAX_PAGE_EXAMPLES = 50
#: |position| of a position id (sinusoidal encodings, RoPE, ALiBi); symbols are allowed too
MAX_POSITION = 10**6
#: the base of a sinusoidal encoding or of RoPE's frequencies: 1 < base ≤ this
MAX_POSITION_BASE = 10**12
