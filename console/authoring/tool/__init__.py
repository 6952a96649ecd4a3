"""The seeded generator of agentic tool-call prompts (the `tool` and `tool-short` sets): tool schemas, data pools,
eight scenario families (one module each) and the builders."""
