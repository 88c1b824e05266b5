"""Beyond-accuracy measures: coverage, concentration, novelty, popularity bias,
diversity, personalization and serendipity of ranked lists.

Rank 2 of the import ladder (as ``_metrics``): it imports only the shared
helpers (``_validation``, ``_registry``'s ``validate``). The evaluation
entry points (``evaluate_ranked``, ``evaluate``) call :func:`measures.compute`.

- :mod:`.kernels`: the measures over top-k lists coded as item codes (a CSR);
- :mod:`.data`: reading ``items=``, ``popularity=``, ``item_features=`` and
  the lists themselves, with the look-ups that name a missing item;
- :mod:`.measures`: the names, the data each needs, one pass for several;
- :mod:`.functions`: the public functions.
"""
