"""Rankings given as lists: TREC files, data frames, recommender ID lists."""
