"""Beyond-accuracy measures: coverage, concentration, novelty, popularity bias,
diversity, personalization and serendipity of ranked lists.

Rank 3 of the import ladder: it reads its lists and truth through ``_inputs``
(``ranked_lists``, ``truth_pairs``: one answer for sets, repeats and mixed
truth everywhere) and its names from the registry (``_metrics.registry``,
families ``beyond_list`` and ``beyond_set``). Every entry point reaches the
measures through :func:`lists.beyond_measures` (lists) or :mod:`.matrix`
(score matrices).

- :mod:`.kernels`: the measures over top-k lists coded as item codes (a CSR);
- :mod:`.data`: reading ``items=``, ``popularity=``, ``item_features=``, the
  top-k lists, and the look-ups that name a missing item;
- :mod:`.measures`: the data each measure reads, one pass for several,
  partial sums of blocks of users;
- :mod:`.lists`: the one path from parsed lists and truth to the measures;
- :mod:`.matrix`: the measures of score matrices (each row's top k);
- :mod:`.functions`: the nine public functions, one body.
"""
