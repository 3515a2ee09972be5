__version__ = "0.0.3"
from .core import refuse_moved as _refuse_moved
_refuse_moved()   # an old module path (twentyq.backend ...) fails in one line that names its new one (nbs/00_core.ipynb)
