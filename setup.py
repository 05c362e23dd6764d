"""The one compiled part: pdf/_charscan.c, a page's per-char PDFium data in one call. Optional: where
it cannot be built (no C compiler), docclean reads the chars through ctypes, the same values slower."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("docclean_assets.extract.pdf._charscan", ["docclean_assets/extract/pdf/_charscan.c"],
                             optional=True)])
