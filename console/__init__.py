"""serving-console: a terminal console for SGLang speculative-decoding deployments."""

__version__ = "0.1.0"
