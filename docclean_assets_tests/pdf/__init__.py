"""The PDF backend's tests: fixtures drawn in code per phenomenon (columns, notes, tables, regions,
furniture, graphics, articles), the native char scanner, `docclean inspect`, and the real-PDF corpus."""
