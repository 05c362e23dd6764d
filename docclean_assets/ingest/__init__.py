"""Which documents a source holds and how their bytes are reached: the sources file (sources.py),
folders and buckets walked and listed (discover.py), web pages fetched (fetch.py) and rendered in
headless Chromium (render.py), and the raw_files rows made of them (inventory.py).

May import: itself, the library (sniffing, settings), the store (locations, storage settings) and the
engine's settings (the sources file names the engine), not the engine itself. No dagster.
"""
