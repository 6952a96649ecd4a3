"""One module per scenario family of the tool-call generator; each `fam_*(rng, variant)` returns a Scenario."""
