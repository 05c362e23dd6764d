"""HTML: the page's DOM to body blocks (JSON-LD, site rules, trafilatura), comments and template kept apart."""
