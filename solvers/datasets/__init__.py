"""Data sets, preprocessing, validation and horizontal partitioning for the solvers.

Everything runs offline: Adult ships inside the package (CC BY 4.0, see data/README.md), and
Twonorm/Ringnorm are generated. Every sampling function takes a seed or a ``numpy.random.Generator``.

Problems ready for a solver (defined in :mod:`solvers.builders`, imported here on first use)::

    from solvers.datasets import adult_problem, problem_from_xy, twonorm_problem
    problem = adult_problem(seed=0)                  # Huang et al. 2020, Sec. VI: Adult over 100 agents
    problem = twonorm_problem(seed=0)                # Wang et al. 2020, Sec. VI: Twonorm over 10 agents
    problem = problem_from_xy(X, y, n_agents=10)     # any binary (X, y): rows in the unit ball,
                                                     # near-equal split, test rows, public rows for D_w
"""

from typing import TYPE_CHECKING

from accountants.lazy import lazy_exports
from solvers.datasets.adult import (
    AdultSplit,
    BundledDataError,
    adult_attributes,
    adult_categories,
    dpadmm_adult_split,
    load_adult,
)
from solvers.datasets.dataset import Dataset, random_split, train_test_split
from solvers.datasets.partition import (
    HorizontalPartition,
    check_horizontal_partition,
    near_equal_sizes,
    partition_horizontal,
)
from solvers.datasets.preprocessing import (
    append_bias,
    max_row_norm,
    maxabs_scale_columns,
    minmax_scale_columns,
    normalize_rows,
    row_norms,
    scale_rows_to_unit_ball,
)
from solvers.datasets.synthetic import ringnorm, ringnorm_delve, twonorm
from solvers.datasets.validation import (
    CheckedData,
    RowsClippedWarning,
    check_dataset,
    check_n_agents,
    check_random_state,
    check_records,
    first_row_outside,
)

# The problem builders need solvers.problem, which imports this package: they load on first use.
_BUILDERS = ("adult_problem", "problem_from_xy", "replace_record", "synthetic_problem", "twonorm_problem")
__getattr__, __dir__ = lazy_exports("solvers.datasets", dict.fromkeys(_BUILDERS, "solvers.builders"), globals())

if TYPE_CHECKING:  # the real imports, for type checkers
    from solvers.builders import adult_problem as adult_problem
    from solvers.builders import problem_from_xy as problem_from_xy
    from solvers.builders import replace_record as replace_record
    from solvers.builders import synthetic_problem as synthetic_problem
    from solvers.builders import twonorm_problem as twonorm_problem

__all__ = [
    "AdultSplit",
    "BundledDataError",
    "CheckedData",
    "Dataset",
    "HorizontalPartition",
    "RowsClippedWarning",
    "adult_attributes",
    "adult_problem",
    "adult_categories",
    "append_bias",
    "check_dataset",
    "check_horizontal_partition",
    "check_n_agents",
    "check_random_state",
    "check_records",
    "dpadmm_adult_split",
    "first_row_outside",
    "load_adult",
    "max_row_norm",
    "maxabs_scale_columns",
    "minmax_scale_columns",
    "near_equal_sizes",
    "normalize_rows",
    "partition_horizontal",
    "problem_from_xy",
    "random_split",
    "replace_record",
    "ringnorm",
    "ringnorm_delve",
    "row_norms",
    "scale_rows_to_unit_ball",
    "synthetic_problem",
    "train_test_split",
    "twonorm",
    "twonorm_problem",
]
