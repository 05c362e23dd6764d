"""Where the tables live and how they are committed: Delta Lake tables, DuckDB views over them."""
