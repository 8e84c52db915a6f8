"""Report sections of the built-in audits, one module per family (each a :data:`audits.spec.SectionBuilder`
factory or builder that :mod:`audits.targets` assembles into a spec): :mod:`audits.sections.star`,
:mod:`audits.sections.decentralized`, :mod:`audits.sections.pdml`, :mod:`audits.sections.sharing`.
"""
