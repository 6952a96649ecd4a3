"""Campaigns (docs/campaigns.md): a sweep plan (`plan`), the runner that measures it on one or several nodes
(`run`), its record on disk (`journal`) and the analysis that answers the operator's decisions from the recorded
rows (`analysis`: routing table, concurrency curves, depth ladders)."""
