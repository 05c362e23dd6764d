"""PDF: chars -> lines -> blocks -> columns -> reading order; furniture, footnotes, regions, tables."""
