"""docclean benchmark harness (see bench/README.md)."""
