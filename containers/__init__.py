"""Container build contexts; installed as ``conformance._data.containers`` (see conformance/resources.py)."""
