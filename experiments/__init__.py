"""Scripts that reproduce the papers' experiments: ``python -m experiments.<name> --help``.

Run them from the repository root: ``experiments`` is a folder of the source tree, not an installed
package (as ``benchmarks`` is), so the installed toolkit never imports it.

* ``dpadmm_adult`` — DP-ADMM on Adult (Huang et al. 2020, Sec. VI).
* ``decentralized_adult`` — R-ADMM / MR-ADMM (Zhang, Khalili & Liu 2020, Recycled ADMM, Fig. 5) and PP vs
  DVP (Zhang, Khalili & Liu 2018, Fig. 2) on Adult.
* ``pdml_twonorm`` — PDML on Twonorm / Ringnorm (Wang et al. 2020, Table I).
* ``sharing_adult``, ``sharing_gisette`` — private ADMM sharing on Adult and the gisette stand-in.
* ``kkt_table`` — KKT inference against M-ADMM, DVP and PP on Adult, beside the
  reconstruction-robustness bound of Balle et al. 2022.
"""
