"""What each asset computes, as plain functions over the store (the Dagster layer only wires them to
partitions, resources and metadata): raw (inventory), parse (batches of documents, committed as they
finish), derive (boilerplate, normalisation and quality, streamed over the committed parts)."""
