"""Data sets, preprocessing, validation and horizontal partitioning for the solvers.

Everything runs offline: Adult ships inside the package (CC BY 4.0, see data/README.md), and
Twonorm/Ringnorm are generated. Every sampling function takes a seed or a ``numpy.random.Generator``.

Problems ready for a solver are built from these by :mod:`solvers.builders` (``adult_problem``,
``twonorm_problem``, ``problem_from_xy``, ...), which imports this package (not the other way round).
"""

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

__all__ = [
    "AdultSplit",
    "BundledDataError",
    "CheckedData",
    "Dataset",
    "HorizontalPartition",
    "RowsClippedWarning",
    "adult_attributes",
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
    "random_split",
    "ringnorm",
    "ringnorm_delve",
    "row_norms",
    "scale_rows_to_unit_ball",
    "train_test_split",
    "twonorm",
]
