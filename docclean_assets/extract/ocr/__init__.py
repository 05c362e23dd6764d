"""OCR: Debian's tesseract-ocr run as a subprocess, its words to blocks, for scanned pages and pictures."""
