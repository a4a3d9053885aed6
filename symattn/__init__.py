"""symattn: attention, softmax(QKᵀ/√d_k)·V, worked in exact and symbolic arithmetic.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> d["scores"].exact
Matrix([[279/250, 633/500, 1339/1000]])
>>> d["output"].decimals(20)
[['0.53847861028073644064', '0.81932177182100748911']]
"""

from .check import Claim, Report, check
from .derive import Derivation, Step, derive
from .grad import Gradient, grad
from .errors import CertificationError, LimitError, SpecError, SymattnError
from .latex.parser import Formula, parse_formula
from .numbers import exact_number, parse_expression
from .spec import Spec, from_dict, list_examples, load, loads

__version__ = "0.1.0"

__all__ = [
    "Derivation", "Step", "Spec", "derive", "check", "Report", "Claim", "grad", "Gradient", "load", "loads", "from_dict", "list_examples",
    "exact_number", "parse_expression", "parse_formula", "Formula",
    "SymattnError", "SpecError", "LimitError", "CertificationError", "__version__",
]
