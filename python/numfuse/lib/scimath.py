"""numfuse.lib.scimath is numfuse.emath (as numpy.lib.scimath is numpy.emath)."""
from ..emath import *  # noqa: F401,F403
from ..emath import __all__  # noqa: F401
