"""Which packages the distribution holds, found at build time (the rest is in pyproject.toml).

DESIGN §1 maps each top-level folder onto a subpackage of ``spycraft`` (``engines`` ->
``spycraft.engines``). setuptools follows that mapping into subfolders by itself, but its
package list must name every subpackage, and ``packages.find`` cannot add the ``spycraft.``
prefix; so the list is computed here from the ``__init__.py`` files, and a new game package
(``engines/<game>/``) is in the distribution without an edit to any build file.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
FOLDERS = ("crypto", "engines", "p2p", "cli")


def packages() -> list[str]:
    found = ["spycraft"]
    for folder in FOLDERS:
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            found.append(".".join(("spycraft", *init.parent.relative_to(ROOT).parts)))
    return found


setup(
    packages=packages(),
    package_dir={"spycraft": "spycraft", **{f"spycraft.{f}": f for f in FOLDERS}},
    package_data={"spycraft.cli": ["guides/*.md"]},  # the player guides (cli.guide)
)
