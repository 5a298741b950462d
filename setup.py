"""Package discovery for setuptools; everything else is in pyproject.toml.

The run-time files live in the repository's top-level ``fixtures/`` and ``containers/`` folders and ship inside
the ``conformance`` package, as ``conformance._data.fixtures`` and ``conformance._data.containers``. pyproject.toml
alone cannot add mapped packages to discovered ones, hence this file.
"""

from setuptools import find_namespace_packages, setup

DATA_PACKAGES = {"conformance._data.fixtures": "fixtures", "conformance._data.containers": "containers"}

setup(
    packages=[*find_namespace_packages(include=["conformance*", "reference*"]), *DATA_PACKAGES],
    package_dir=DATA_PACKAGES,
)
