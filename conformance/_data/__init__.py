"""The kit's run-time files: ``fixtures`` and ``containers``, shipped from the repository's top-level folders.

setup.py maps ``conformance._data.fixtures`` to ``fixtures/`` and ``conformance._data.containers`` to
``containers/``, so an installed kit and a checkout find them the same way (see :mod:`conformance.resources`).
"""
