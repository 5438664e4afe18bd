"""toolscore's engine: hook contracts, records, plugin manager, evaluation pipeline."""
