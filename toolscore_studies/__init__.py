"""Studies: many agent runs over tasks and trials, recorded as JSON Lines and regraded."""
