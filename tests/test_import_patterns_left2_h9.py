"""Ways of writing numbers met on held-out batch at (tests/pages/heldout/at/), session 9, as snippets with what
they must yield. Each expected value was read off the snippet by hand."""

from import_snippets import claims, imported

from symattn.read.pages.slice_links import drop_slice_link

# X is 2 x 3; W^V keeps X's first two columns, so V = X W^V = X[:, :2] = [[1, 0], [0, 1]];
# Q = X W^Q = [[1, 1], [0, 1]], K = X W^K = [[0, 1], [1, 0]]
INPUTS = r"""
Let $X = \begin{bmatrix} 1 & 0 & 2 \\ 0 & 1 & 3 \end{bmatrix}$ and

$$W^Q = \begin{bmatrix} 1 & 1 \\ 0 & 1 \\ 0 & 0 \end{bmatrix}, \quad W^K = \begin{bmatrix} 0 & 1 \\ 1 & 0 \\ 0 & 0 \end{bmatrix},
\quad W^V = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 0 & 0 \end{bmatrix}$$

"""


# a chain through a symbolic slice: 'V = X W^V = X_{[:,:2]} = [..]' is V, named by the chain's head
def test_chain_through_subscripted_slice_is_its_head():
    page = INPUTS + (r"$$Q = X W^Q = \begin{bmatrix} 1 & 1 \\ 0 & 1 \end{bmatrix}, \quad "
                     r"V = X W^V = X_{[:,:2]} = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}$$" "\n")
    (ex,) = imported(page)
    got = claims(ex)
    assert ("V", "1", ("1", "0")) in got and ("V", "2", ("0", "1")) in got
    assert ("Q", "1", ("1", "1")) in got and ("Q", "2", ("0", "1")) in got


# the same with a plain bracket slice on a line of its own
def test_chain_through_bracket_slice_is_its_head():
    page = INPUTS + r"$$V = X W^V = X[:, :2] = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}$$" "\n"
    (ex,) = imported(page)
    got = claims(ex)
    assert ("V", "1", ("1", "0")) in got and ("V", "2", ("0", "1")) in got


# near misses: an index (no ':') is no slice; a link after a comma is a new clause, not the chain's
def test_index_or_new_clause_is_not_cut_back():
    assert drop_slice_link(r" V = X W^V = X_{[0,1]} = ") == r" V = X W^V = X_{[0,1]} = "
    assert drop_slice_link(r" V = X W^V, \quad A = X_{[:,:2]} = ") == r" V = X W^V, \quad A = "
    assert drop_slice_link(r" A = X[:,:2] = ") == r" A = "
    assert drop_slice_link("V = Q") == "V = Q"
