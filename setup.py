"""Package discovery for setuptools; everything else is in pyproject.toml.

The run-time files live in the repository's top-level ``fixtures/`` and ``containers/`` folders and ship inside
the ``conformance`` package, as ``conformance._data.fixtures`` and ``conformance._data.containers``. pyproject.toml
alone cannot add mapped packages to discovered ones, hence this file. The JavaScript runtime's ``node_modules``
(made by ``npm ci`` in a checkout) is never packaged: a half-copied npm tree would break the runtime, and the
installed kit's runtime gets its own ``npm ci`` (see the README's code-execution section).
"""

from setuptools import find_namespace_packages, setup

DATA_PACKAGES = {"conformance._data.fixtures": "fixtures", "conformance._data.containers": "containers"}

setup(
    packages=[
        *find_namespace_packages(
            include=["conformance*", "reference*"], exclude=["*.node_modules", "*.node_modules.*"]
        ),
        *DATA_PACKAGES,
    ],
    package_dir=DATA_PACKAGES,
)
