"""Every room but the Dagster layer imports, and the library runs, with dagster made unimportable."""
import subprocess
import sys

CODE = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == 'dagster' or name.startswith('dagster.') or name.startswith('dagster_'):
            raise ImportError('dagster is blocked in this test')
sys.meta_path.insert(0, Block())
import importlib, pkgutil
import docclean_assets
import docclean_assets.extract as ex
rooms = [m.name for m in pkgutil.walk_packages(docclean_assets.__path__, 'docclean_assets.')
         if m.name.split('.')[1] not in ('defs', 'cli')]
assert len(rooms) > 100, rooms
for name in rooms:
    importlib.import_module(name)
r = ex.extract_document(b'<html><body><article><h1>T</h1><p>' + b'Plain words here. ' * 20 + b'</p></article></body></html>', 'html')
assert any(b.in_body for b in r.blocks), r
assert not any(m == 'dagster' or m.startswith('dagster.') for m in sys.modules)
print('ok')
"""


def test_library_imports_without_dagster():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
